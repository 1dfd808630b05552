"""Code written by ``python engine/_fields.py`` from the tables of the states' fields there: do not edit
it by hand. ``base.py`` declares the fields every game has (for ``StateBase``); ``shithead.py`` and
``neighbor.py`` each game's other fields, their values in a new game, copy and data (for
``ShitheadState`` and ``NeighborState``)."""
