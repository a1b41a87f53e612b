raise SystemExit("crashes.py: a program that fails before compiling anything")
