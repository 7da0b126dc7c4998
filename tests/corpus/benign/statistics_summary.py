# expect: LOW benign
import statistics

scores = [88, 92, 79, 93, 85, 91, 77, 84, 90, 86]
print("mean", statistics.mean(scores))
print("median", statistics.median(scores))
print("stdev", round(statistics.stdev(scores), 2))
print("quartiles", statistics.quantiles(scores, n=4))
