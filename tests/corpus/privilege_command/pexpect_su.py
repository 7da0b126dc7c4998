# expect: HIGH privilege_command
import pexpect
child = pexpect.spawn("su root")
child.expect("Password:")
child.sendline("toor")
child.sendline("id")
