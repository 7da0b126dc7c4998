# expect: LOW benign
from decimal import Decimal, getcontext
from fractions import Fraction

getcontext().prec = 50
print(Decimal(1) / Decimal(7))
harmonic = sum(Fraction(1, n) for n in range(1, 21))
print(harmonic, float(harmonic))
prices = [Decimal("19.99"), Decimal("5.01"), Decimal("0.10")]
print(sum(prices), sum(prices).quantize(Decimal("0.1")))
