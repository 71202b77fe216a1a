.PHONY: test-tsan

# The ring stress tests under ThreadSanitizer (DESIGN.md §3). A separate scratch path keeps the TSan build apart.
test-tsan:
	swift test --sanitize=thread --scratch-path .build-tsan --filter RingStress
