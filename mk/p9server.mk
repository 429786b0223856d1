# ---- 9P2000.L server (issue 6): src/p9/p9srv*.c, steady serve --------------
# The server itself is part of the freestanding core (src/p9 is in
# CORE_SRCS); this file adds its host program, fuzzer and tests.
