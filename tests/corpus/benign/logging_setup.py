# expect: LOW benign
import logging
import logging.handlers

log = logging.getLogger("app")
log.setLevel(logging.DEBUG)
handler = logging.handlers.RotatingFileHandler("app.log", maxBytes=1_000_000, backupCount=3)
handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
log.addHandler(handler)
log.addHandler(logging.StreamHandler())

for i in range(5):
    log.info("step %d done", i)
log.warning("finished with %s", "no errors")
