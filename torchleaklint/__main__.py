from torchleaklint.cli import main

main()
