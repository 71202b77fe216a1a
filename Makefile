# griptrack: build and install.
#
#   make                                   release build of griptrack and griptrackd
#   sudo make install [PREFIX=/usr/local]  binaries, systemd unit, sysusers.d file, example config, docs,
#                                          shell completions
#   sudo make uninstall [PREFIX=...]       removes exactly what install put there
#   make build-hub; sudo make install-hub  griptrack-hub, its unit and sysusers.d file (on the server, docs/account.md)
#   sudo make install-man                  griptrack(1), griptrackd(8), griptrack-hub(8) (after build and build-hub)
#
# The Debian package (debian/rules, docs/packaging.md) builds and installs with these targets, PREFIX=/usr and
# UNIT_DIR=/lib/systemd/system (where Debian 12's debhelper looks for units).
#
# DESTDIR stages the tree for a package (make install DESTDIR=/tmp/pkg). BIN_DIR installs binaries that are
# already built (e.g. BIN_DIR=.build/release) without running swift build. After installing the unit:
#   sudo systemd-sysusers && sudo systemctl daemon-reload && sudo systemctl enable --now griptrack

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
INSTALL ?= install
BIN_DIR ?=
UNIT_DIR ?= $(PREFIX)/lib/systemd/system

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
scratch := .build-static
RELEASE_FLAGS ?= -c release --static-swift-stdlib --scratch-path $(scratch) \
	-Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

ifeq ($(BIN_DIR),)
install_deps := build
bin_dir = $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)
else
install_deps :=
bin_dir = $(BIN_DIR)
endif

bindir := $(DESTDIR)$(PREFIX)/bin
unitdir := $(DESTDIR)$(UNIT_DIR)
sysusersdir := $(DESTDIR)$(PREFIX)/lib/sysusers.d
docdir := $(DESTDIR)$(PREFIX)/share/doc/griptrack
docs := README.md $(wildcard docs/*.md)
# Where each shell's own packages put completions (bash-completion, zsh and fish read these under PREFIX=/usr; under
# /usr/local, bash-completion and fish look in the same places below /usr/local/share).
bashcompdir := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
zshcompdir := $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions
fishcompdir := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

mandir := $(DESTDIR)$(PREFIX)/share/man

# The man pages are the argument parser's own description of each command, written by swift-argument-parser's
# generate-manual tool, built from the checkout SwiftPM already made. (Its package plugin would build griptrack again
# without RELEASE_FLAGS.) The date is the release's when dpkg sets SOURCE_DATE_EPOCH (from debian/changelog), so the
# pages are the same on every build.
manual_tool := .build-manual/debug/generate-manual
man_date := $(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(date +%s)} +%F)

.PHONY: all build build-hub install install-hub install-man uninstall uninstall-hub release-flags

all: build

# For scripts that build griptrackd as `make` does (scripts/bench-daemon).
release-flags:
	@echo $(RELEASE_FLAGS)

build:
	$(SWIFT) build $(RELEASE_FLAGS) --product griptrack
	$(SWIFT) build $(RELEASE_FLAGS) --product griptrackd

build-hub:
	$(SWIFT) build $(RELEASE_FLAGS) --product griptrack-hub

# The completions are griptrack's own (swift-argument-parser writes them from the command tree), so they are made
# from the binary being installed: a cross-built binary that cannot run here needs them made on the target. The
# bash script loses its #! line: bash-completion sources it, it is never run.
install: $(install_deps)
	$(INSTALL) -d $(bindir) $(unitdir) $(sysusersdir) $(docdir) $(bashcompdir) $(zshcompdir) $(fishcompdir)
	$(INSTALL) -m 0755 $(bin_dir)/griptrack $(bin_dir)/griptrackd $(bindir)/
	sed 's|^ExecStart=[^ ]*/griptrackd|ExecStart=$(PREFIX)/bin/griptrackd|' systemd/griptrack.service > $(unitdir)/griptrack.service
	chmod 0644 $(unitdir)/griptrack.service
	$(INSTALL) -m 0644 systemd/griptrack.sysusers $(sysusersdir)/griptrack.conf
	$(INSTALL) -m 0644 systemd/griptrack.toml.example $(docs) $(docdir)/
	$(bin_dir)/griptrack --generate-completion-script bash | sed '1{/^#!/d}' > $(bashcompdir)/griptrack
	$(bin_dir)/griptrack --generate-completion-script zsh > $(zshcompdir)/_griptrack
	$(bin_dir)/griptrack --generate-completion-script fish > $(fishcompdir)/griptrack.fish
	chmod 0644 $(bashcompdir)/griptrack $(zshcompdir)/_griptrack $(fishcompdir)/griptrack.fish

install-hub: $(if $(BIN_DIR),,build-hub)
	$(INSTALL) -d $(bindir) $(unitdir) $(sysusersdir)
	$(INSTALL) -m 0755 $(bin_dir)/griptrack-hub $(bindir)/
	sed 's|^ExecStart=[^ ]*/griptrack-hub|ExecStart=$(PREFIX)/bin/griptrack-hub|' systemd/griptrack-hub.service > $(unitdir)/griptrack-hub.service
	chmod 0644 $(unitdir)/griptrack-hub.service
	$(INSTALL) -m 0644 systemd/griptrack-hub.sysusers $(sysusersdir)/griptrack-hub.conf

$(manual_tool):
	$(SWIFT) build --package-path $(scratch)/checkouts/swift-argument-parser --scratch-path .build-manual --product generate-manual

install-man: $(manual_tool)
	$(INSTALL) -d $(mandir)/man1 $(mandir)/man8
	$(manual_tool) $(bin_dir)/griptrack --section 1 --date $(man_date) --output-directory $(mandir)/man1
	$(manual_tool) $(bin_dir)/griptrackd --section 8 --date $(man_date) --output-directory $(mandir)/man8
	$(manual_tool) $(bin_dir)/griptrack-hub --section 8 --date $(man_date) --output-directory $(mandir)/man8
	# A paragraph break in a command's discussion comes out as an empty line, which groff warns about in mdoc.
	sed -i 's/^$$/.Pp/' $(mandir)/man1/griptrack.1 $(mandir)/man8/griptrackd.8 $(mandir)/man8/griptrack-hub.8
	chmod 0644 $(mandir)/man1/griptrack.1 $(mandir)/man8/griptrackd.8 $(mandir)/man8/griptrack-hub.8

uninstall:
	rm -f $(bindir)/griptrack $(bindir)/griptrackd $(unitdir)/griptrack.service $(sysusersdir)/griptrack.conf
	rm -f $(docdir)/griptrack.toml.example $(addprefix $(docdir)/,$(notdir $(docs)))
	rm -f $(bashcompdir)/griptrack $(zshcompdir)/_griptrack $(fishcompdir)/griptrack.fish
	rm -f $(mandir)/man1/griptrack.1 $(mandir)/man8/griptrackd.8
	-rmdir $(docdir) 2>/dev/null

uninstall-hub:
	rm -f $(bindir)/griptrack-hub $(unitdir)/griptrack-hub.service $(sysusersdir)/griptrack-hub.conf
	rm -f $(mandir)/man8/griptrack-hub.8
