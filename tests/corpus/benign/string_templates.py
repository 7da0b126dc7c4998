# expect: LOW benign
from string import Template

tmpl = Template("Dear $name,\nYour order #$order ships on $date.\n")
orders = [("Ann", 1001, "May 3"), ("Bob", 1002, "May 4")]
for name, order, date in orders:
    print(tmpl.substitute(name=name, order=order, date=date))
print("{:>10}|{:^10}|{:<10}".format("right", "mid", "left"))
