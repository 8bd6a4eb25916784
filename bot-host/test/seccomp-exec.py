"""Loads a seccomp profile (the runtime spec's JSON, as deploy/bot-host-seccomp.json) into the kernel
through libseccomp, as a container runtime would, then runs the rest of its command line under it.

    python3 seccomp-exec.py <profile.json> <command> [args...]

For seccomp-profile.test.ts: a real filter on a real Chromium, where no container runtime is at hand.
Syscall names this architecture lacks are left out, as runc leaves them out.
"""
import ctypes
import json
import os
import sys

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000
OPS = {"SCMP_CMP_NE": 1, "SCMP_CMP_LT": 2, "SCMP_CMP_LE": 3, "SCMP_CMP_EQ": 4, "SCMP_CMP_GE": 5, "SCMP_CMP_GT": 6, "SCMP_CMP_MASKED_EQ": 7}


class ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


def action(name, errno):
    if name == "SCMP_ACT_ALLOW":
        return SCMP_ACT_ALLOW
    if name == "SCMP_ACT_ERRNO":
        return SCMP_ACT_ERRNO | (errno & 0xFFFF)
    sys.exit(f"seccomp-exec: unknown action {name}")


lib = ctypes.CDLL("libseccomp.so.2")
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_init.argtypes = [ctypes.c_uint32]
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(ArgCmp)]
lib.seccomp_load.argtypes = [ctypes.c_void_p]

with open(sys.argv[1]) as file:
    profile = json.load(file)
ctx = lib.seccomp_init(action(profile["defaultAction"], profile.get("defaultErrnoRet", 1)))
for rule in profile["syscalls"]:
    args = rule.get("args") or []
    # Masked equality: `value` is the mask and `valueTwo` what the masked argument must equal.
    cmps = (ArgCmp * max(1, len(args)))(*[ArgCmp(a["index"], OPS[a["op"]], a["value"], a.get("valueTwo", 0)) for a in args])
    for name in rule["names"]:
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:
            continue
        rc = lib.seccomp_rule_add_array(ctx, action(rule["action"], rule.get("errnoRet", 1)), number, len(args), cmps)
        if rc < 0:
            sys.exit(f"seccomp-exec: the rule for {name} was refused ({rc})")
# libseccomp sets no_new_privs first, as runc does for a container without privileges.
rc = lib.seccomp_load(ctx)
if rc < 0:
    sys.exit(f"seccomp-exec: the filter was refused ({rc})")
os.execvp(sys.argv[2], sys.argv[2:])
