# expect: LOW benign
class Trie:
    def __init__(self):
        self.root = {}

    def insert(self, word):
        node = self.root
        for ch in word:
            node = node.setdefault(ch, {})
        node["$"] = True

    def complete(self, prefix):
        node = self.root
        for ch in prefix:
            if ch not in node:
                return []
            node = node[ch]
        out = []
        stack = [(node, prefix)]
        while stack:
            n, p = stack.pop()
            for k, child in n.items():
                if k == "$":
                    out.append(p)
                else:
                    stack.append((child, p + k))
        return sorted(out)


t = Trie()
for w in ["car", "cart", "care", "cat", "dog"]:
    t.insert(w)
print(t.complete("car"))
