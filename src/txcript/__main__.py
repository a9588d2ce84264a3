from txcript.cli import main

main()
