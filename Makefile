.PHONY: test-tsan

# The ring stress tests under ThreadSanitizer (DESIGN.md §3); a separate scratch path keeps the TSan build apart.
# The first line is the debug run. The second matters more: in a debug build the stdlib's raw-pointer accessors
# (storeBytes, load(fromByteOffset:), UnsafeRawBufferPointer subscripts) are called, not inlined, and libswiftCore is
# not instrumented, so TSan cannot see the slot accesses at all (a ring with relaxed publication passes the debug
# run). With -c release they are inlined into instrumented code: relaxing either the tail or the head ordering then
# fails with data-race reports. -enable-testing keeps the @testable imports compiling in release.
test-tsan:
	swift test --sanitize=thread --scratch-path .build-tsan --filter RingStress
	swift test -c release -Xswiftc -enable-testing --sanitize=thread --scratch-path .build-tsan --filter RingStress
