# expect: LOW benign
class EventBus:
    def __init__(self):
        self._handlers = {}

    def on(self, name, handler):
        self._handlers.setdefault(name, []).append(handler)

    def emit(self, name, *args):
        for handler in self._handlers.get(name, []):
            handler(*args)


bus = EventBus()
log = []
bus.on("saved", lambda doc: log.append(("saved", doc)))
bus.on("saved", lambda doc: print("saved", doc))
bus.emit("saved", "report.txt")
print(log)
