# expect: MEDIUM deserialization
import pandas as pd
df = pd.read_pickle("frame.pkl")
print(df.describe())
