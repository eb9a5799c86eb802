"""The benchmark's statistics, pure arithmetic over result rows: a seat's score (`scores`), the
faction-adjusted strength fit and Wilson intervals (`strength`), a run's summary (`summary`),
the sequential test (`sprt`) and the verdicts in plain words (`verdict`).
"""
