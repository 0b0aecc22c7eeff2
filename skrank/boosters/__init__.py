"""Tie-aware skrank metrics inside LightGBM's and XGBoost's training, over
one common core.

:mod:`skrank.boosters._common` holds what both boosters' metrics do (the
names and options checked once, the query groups, the evaluation);
:mod:`skrank.boosters.lightgbm` and :mod:`skrank.boosters.xgboost` read each
booster's evaluation data. The public functions are those of
:mod:`skrank.lightgbm` and :mod:`skrank.xgboost`.
"""
