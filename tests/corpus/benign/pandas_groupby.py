# expect: LOW benign
import pandas as pd

df = pd.read_csv("orders.csv", parse_dates=["date"])
df["month"] = df["date"].dt.to_period("M")
summary = df.groupby(["month", "product"]).agg(units=("qty", "sum"), revenue=("total", "sum"))
summary.to_csv("summary.csv")
print(summary.head(20))
