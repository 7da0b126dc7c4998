# expect: LOW benign
import unittest


def slugify(s):
    return "-".join(s.lower().split())


class SlugTests(unittest.TestCase):
    def test_spaces(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_empty(self):
        self.assertEqual(slugify(""), "")


if __name__ == "__main__":
    unittest.main()
