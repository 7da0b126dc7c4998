# expect: LOW benign
class InsufficientFunds(Exception):
    pass


class Account:
    interest = 0.01

    def __init__(self, owner, balance=0):
        self.owner = owner
        self._balance = balance

    @property
    def balance(self):
        return self._balance

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        self._balance += amount

    def withdraw(self, amount):
        if amount > self._balance:
            raise InsufficientFunds(self.owner)
        self._balance -= amount

    def __repr__(self):
        return f"Account({self.owner!r}, {self._balance})"


class Savings(Account):
    interest = 0.03

    def accrue(self):
        self._balance *= 1 + self.interest


a = Savings("ann", 100)
a.accrue()
a.withdraw(50)
print(a)
