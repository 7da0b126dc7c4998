# expect: LOW benign
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

xs = [i / 10 for i in range(100)]
plt.plot(xs, [math.sin(x) for x in xs], label="sin")
plt.plot(xs, [math.cos(x) for x in xs], label="cos")
plt.legend()
plt.savefig("waves.png", dpi=120)
print("saved waves.png")
