"""The web page as a set of files: ``bundle`` builds the map of them (with the package
bundle and the snapshot), ``writer`` writes it out as a static site, ``server`` serves it.

Nothing is imported here: ``build-site`` needs no server, and the rest of the command line neither.
"""
