from agentkgv.commands.app import main

main()
