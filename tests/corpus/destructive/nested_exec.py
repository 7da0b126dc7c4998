# expect: BLOCKED destructive
exec("exec('import os; os.system(\"rm -rf /home\")')")
