"""Every settings file (run configs, the benchmark regimes, teacher, SFT and GRPO settings) is a TOML file read
by one loader into a pydantic model that rejects unknown keys: a typo is an error naming the file and the
key, never a silently ignored line."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from agentkgv.data.errors import DataError

M = TypeVar("M", bound=BaseModel)


class Settings(BaseModel):
    """Base of every settings model: unknown keys are refused at every level that inherits it."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def load(cls, path: Path | None) -> Self:
        """The file's settings over the defaults; no file means all defaults."""
        return cls() if path is None else load_toml(cls, path)


def load_toml(model: type[M], path: Path, text: str | None = None) -> M:
    """`model` from the TOML file at `path` (or from `text`, read elsewhere, with `path` naming it in errors)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8") if text is None else text)
        return model.model_validate(data)
    except OSError as error:
        raise DataError(path, error.strerror or str(error)) from None
    except tomllib.TOMLDecodeError as error:
        raise DataError(path, str(error)) from None
    except ValidationError as error:
        raise invalid(path, error) from None


def invalid(source: str | Path, error: ValidationError, names: dict[str, str] | None = None) -> DataError:
    """The first problem pydantic found, as `source: field 'key': message`; `names` renames keys (a
    setting's dotted path to the command-line option that set it)."""
    first = error.errors()[0]
    key = ".".join(str(part) for part in first["loc"])
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return DataError(source, f"{first['msg']}{more}", field=(names or {}).get(key, key))
