"""Run strategies: which proposer leads a run, chosen per run by a bandit over recorded outcomes."""
