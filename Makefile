# griptrack: build and install.
#
#   make                                   release build of griptrack and griptrackd
#   sudo make install [PREFIX=/usr/local]  binaries, systemd unit, sysusers.d file, example config, docs
#   sudo make uninstall [PREFIX=...]       removes exactly what install put there
#
# DESTDIR stages the tree for a package (make install DESTDIR=/tmp/pkg). BIN_DIR installs binaries that are
# already built (e.g. BIN_DIR=.build/release) without running swift build. After installing the unit:
#   sudo systemd-sysusers && sudo systemctl daemon-reload && sudo systemctl enable --now griptrack

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
INSTALL ?= install
BIN_DIR ?=

# Release binaries link the Swift runtime and Foundation statically: about 5 ms less dynamic linking and
# relocation on every run of griptrack (measured: Benchmarks/README.md). SwiftPM has
# no manifest setting for it, and `--static-swift-stdlib` compiles every module against the static SDK, so these
# builds get their own scratch path instead of rebuilding .build/release each time a plain `swift build` ran.
#
# Linked by lld with packed relative relocations (DT_RELR, glibc 2.36+: Debian 12 and Raspberry Pi OS 12): a
# position-independent binary with the runtime linked in has about 130,000 relative relocations, which as RELA
# entries are 3.1 MiB that the loader reads on every start; packed they are 25 KiB. Measured on griptrackd: 3.1 MiB
# less RSS (37.8 -> 34.7 MiB replaying a capture) and about 0.5 ms less to start (Benchmarks/README.md). Debian's
# default linker (gold) cannot pack them; lld comes with the Swift toolchain.
RELEASE_FLAGS ?= -c release --static-swift-stdlib --scratch-path .build-static \
	-Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

ifeq ($(BIN_DIR),)
install_deps := build
bin_dir = $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)
else
install_deps :=
bin_dir = $(BIN_DIR)
endif

bindir := $(DESTDIR)$(PREFIX)/bin
unitdir := $(DESTDIR)$(PREFIX)/lib/systemd/system
sysusersdir := $(DESTDIR)$(PREFIX)/lib/sysusers.d
docdir := $(DESTDIR)$(PREFIX)/share/doc/griptrack
docs := README.md $(wildcard docs/*.md)

.PHONY: all build install uninstall release-flags

all: build

# For scripts that build griptrackd as `make` does (scripts/bench-daemon).
release-flags:
	@echo $(RELEASE_FLAGS)

build:
	$(SWIFT) build $(RELEASE_FLAGS) --product griptrack
	$(SWIFT) build $(RELEASE_FLAGS) --product griptrackd

install: $(install_deps)
	$(INSTALL) -d $(bindir) $(unitdir) $(sysusersdir) $(docdir)
	$(INSTALL) -m 0755 $(bin_dir)/griptrack $(bin_dir)/griptrackd $(bindir)/
	sed 's|^ExecStart=[^ ]*/griptrackd|ExecStart=$(PREFIX)/bin/griptrackd|' systemd/griptrack.service > $(unitdir)/griptrack.service
	chmod 0644 $(unitdir)/griptrack.service
	$(INSTALL) -m 0644 systemd/griptrack.sysusers $(sysusersdir)/griptrack.conf
	$(INSTALL) -m 0644 systemd/griptrack.toml.example $(docs) $(docdir)/

uninstall:
	rm -f $(bindir)/griptrack $(bindir)/griptrackd $(unitdir)/griptrack.service $(sysusersdir)/griptrack.conf
	rm -f $(docdir)/griptrack.toml.example $(addprefix $(docdir)/,$(notdir $(docs)))
	-rmdir $(docdir) 2>/dev/null
