from ._launch import main

main()
