from agentkgv.cli import main

main()
