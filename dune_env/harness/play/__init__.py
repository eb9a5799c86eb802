"""Where the benchmark's games run: one game in a worker (`runner`), killable worker processes
(`workers`), the local and Ray backends (`backends`), processes of their own for policies whose
code is not the project's (`hosts`), the worker's message and its replay into result rows
(`replayed`), the dice luck measured as a game is played (`luck`), and the result types
(`types`: `SeatResult`, `GameFailure`, `GameRecord`).  The games themselves are played by
`dune_env.match`.
"""
