# Packaging tests: make install/uninstall and make deb used as a user would
# (tests/packaging/install.sh: dpkg -i and -r as well when run as root), and
# the bash completion (tests/packaging/completion.sh).  Part of make test.
.PHONY: packaging-test
packaging-test: test-build
	@tests/timed.sh 300 tests/packaging/completion.sh $(BUILD)
	+@tests/timed.sh 900 tests/packaging/install.sh $(BUILD)
