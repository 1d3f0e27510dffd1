"""Training settings read from TOML files (configs/*.toml): a typo in a key is an error, not a silent default."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Self

from pydantic import BaseModel, ConfigDict

from agentkgv.data.errors import DataError


class TomlSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @classmethod
    def load(cls, path: Path | None) -> Self:
        """The file's settings over the defaults; no file means all defaults."""
        if path is None:
            return cls()
        try:
            return cls.model_validate(tomllib.loads(Path(path).read_text()))
        except (OSError, tomllib.TOMLDecodeError, ValueError) as error:
            raise DataError(path, str(error)) from None
