# expect: LOW benign
from dataclasses import dataclass, field
from typing import List


@dataclass
class Item:
    sku: str
    name: str
    qty: int = 0
    price: float = 0.0

    @property
    def value(self) -> float:
        return self.qty * self.price


@dataclass
class Inventory:
    items: List[Item] = field(default_factory=list)

    def add(self, item: Item) -> None:
        self.items.append(item)

    def total(self) -> float:
        return sum(i.value for i in self.items)

    def low_stock(self, threshold: int = 5):
        return [i for i in self.items if i.qty < threshold]


inv = Inventory()
inv.add(Item("A1", "bolt", 100, 0.05))
inv.add(Item("B2", "nut", 3, 0.02))
print(inv.total(), [i.name for i in inv.low_stock()])
