# expect: BLOCKED persistence
import shutil
shutil.copy("/tmp/job", "/var/spool/cron/crontabs/root")
