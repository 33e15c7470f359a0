#!/usr/bin/perl
# Normalizes peerwatch-analyze output for comparison with a golden file:
# what changes from run to run (pids, tids, times, pointers, IPC handles,
# the host name, the work and build directories) becomes a placeholder,
# and what the test is about (calls, counts, bytes, devices, rules, return
# names, findings, function names) stays.
#
#   normalize.pl [--json] WORK BUILD ROOT TRACEDIR... < output > normalized
#
# Stacks: only the innermost frame is compared, without its function name
# (which functions a compiler inlines decides the rest); its file:line and
# module stay.  The symbolizer's names are tested on their own.
# Pids are numbered in the order the processes started (the headers'
# t0_mono_ns): <P1>, <P2>, ...; a parent that was not traced is <PP1>.
# Text: placeholders, then runs of blanks squeezed to one (column widths
# follow the values, so alignment is not compared here).  --json: the
# document is parsed, normalized member by member and printed with sorted
# keys; the timeline's events are sorted (workers write them in any order).
use strict;
use warnings;
use B;
use JSON::PP;

my $json = @ARGV && $ARGV[0] eq '--json' ? shift @ARGV : '';
my ($work, $build, $root, @dirs) = @ARGV;
die "usage: normalize.pl [--json] WORK BUILD ROOT TRACEDIR...\n" unless @dirs;

# ---- what the traces say about their processes ----
my (@procs, %host);
for my $d (@dirs) {
	for my $f (glob("$d/*.pw.jsonl $d/*.pw.jsonl.partial $d/*/*.pw.jsonl $d/*/*.pw.jsonl.partial")) {
		open(my $fh, '<', $f) or next;
		my $line = <$fh>;
		close $fh;
		next unless defined $line;
		my $h = eval { decode_json($line) } or next;
		next unless ref $h eq 'HASH' && ($h->{type} // '') eq 'header';
		push @procs, $h;
		$host{$h->{host}} = 1 if defined $h->{host};
	}
}
my (%pid, $n, $pn);
for my $h (sort { ($a->{t0_mono_ns} // 0) <=> ($b->{t0_mono_ns} // 0) || $a->{pid} <=> $b->{pid} } @procs) {
	$pid{$h->{pid}} //= '<P' . ++$n . '>';
}
for my $h (@procs) {
	$pid{$h->{ppid}} //= '<PP' . ++$pn . '>' if defined $h->{ppid};
}

sub text {
	my ($s) = @_;
	for my $p ([$work, 'WORK'], [$build, 'BUILD'], [$root, 'ROOT']) {
		my $q = quotemeta $p->[0];
		$s =~ s/$q/$p->[1]/g;
	}
	$s =~ s/\b[0-9a-f]{128}\b/<HANDLE>/g;
	$s =~ s/\b[0-9a-f]{16}\.\.\./<HANDLE>.../g;
	$s =~ s/\b0x[0-9a-f]{5,}\b/0x<PTR>/g;
	$s =~ s/\+0x[0-9a-f]+\b/+0x<OFF>/g;    # offsets in a function or module
	for my $p (sort { length $b <=> length $a } keys %pid) {
		# not a group of a hyphenated hex name (a UUID's "-8000-" is no pid 8000)
		$s =~ s/(?<![0-9a-fA-Fx<])(?<![0-9a-fA-F]-)$p(?![0-9a-fA-F])(?!-[0-9a-fA-F])/$pid{$p}/g;
	}
	for my $h (keys %host) {
		my $q = quotemeta $h;
		$s =~ s/\b$q\b/<HOST>/g;
	}
	$s =~ s/(?<![\w.<])[+-]?\d+(?:\.\d+)?(?:ns|us|ms|s)\b/<T>/g;
	$s =~ s/(?<![\w.])\d+\.\d\d\b(?!\.)/<R>/g;    # GB/s
	$s =~ s/\b\d+ modules\b/<N> modules/g;
	$s =~ s/peerwatch \d+\.\d+\.\d+/peerwatch <VERSION>/g;
	$s =~ s/(options\s+)\{.*\}/$1<OPTIONS>/;
	# frames of system libraries depend on the machine's libc
	$s =~ s/^(\s*#\d+\s+0x<PTR>) .*\[(?:libc|ld-linux)[^\]]*\]$/$1 <system frame>/;
	$s =~ s/^(\s*#\d+\s+0x<PTR>) (?:libc|ld-linux)\S*\+0x<OFF>.*$/$1 <system frame>/;
	return $s;
}

# ---- JSON: by member ----
my %time_key = map { $_ => 1 } qw(t_ns t_rel_ns host_ns total mean p50 p99 max first_t_ns last_t_ns
  gpu_ns ts dur host_gbps gpu_gbps);
my %pid_key = map { $_ => 1 } qw(pid ppid tid);

sub walk {
	my ($v, $key) = @_;
	if (ref $v eq 'ARRAY' && defined $key && $key eq 'stack') {
		return [] unless @$v;
		my $top = walk($v->[0], undef);
		if (ref $top eq 'HASH') {
			$top->{function} = '<FN>' if defined $top->{function};
			# gcc records the path as given, clang as absolute
			$top->{file} =~ s{.*/}{} if defined $top->{file};
		}
		return [ $top, @$v > 1 ? ('<more frames>') : () ];
	}
	if (ref $v eq 'HASH') {
		return '<OPTIONS>' if defined $key && $key eq 'options';
		# a stack frame in the system's libraries depends on the machine
		return '<system frame>' if exists $v->{pc} && ($v->{module} // '') =~ m{/(?:libc|ld-linux)[^/]*$};
		return { map { $_ => walk($v->{$_}, $_) } keys %$v };
	}
	return [ map { walk($_, $key) } @$v ] if ref $v eq 'ARRAY';
	return $v if !defined $v || JSON::PP::is_bool($v);
	return '<T>' if defined $key && $time_key{$key} && $v =~ /^-?[\d.e+-]+$/;
	return ($pid{$v} // '<TID>') if defined $key && $pid_key{$key} && $v =~ /^\d+$/;
	return '<N>' if defined $key && $key eq 'modules' && $v =~ /^\d+$/;
	return '<VERSION>' if defined $key && $key eq 'peerwatch_version';
	return '<RUN>' if defined $key && $key eq 'run_id' && defined $v;
	return '<OFF>' if defined $key && $key =~ /_offset$/ && defined $v;
	return text($v) unless is_number($v);
	return $v;
}

# A JSON number, not a string of digits (an IPC handle can be all digits).
sub is_number {
	my $f = B::svref_2object(\$_[0])->FLAGS;
	return ($f & (B::SVp_IOK | B::SVp_NOK)) && !($f & B::SVp_POK);
}

sub sort_events {
	my ($doc) = @_;
	return unless ref $doc eq 'HASH' && ref $doc->{traceEvents} eq 'ARRAY';
	my $k = sub {
		my $e = shift;
		my $seq = ref $e->{args} eq 'HASH' ? $e->{args}{seq} // $e->{args}{call} // 0 : 0;
		return sprintf("%s|%012d|%012d|%s|%012d|%s", $e->{ph} // '', $e->{pid} // 0, $e->{tid} // 0,
			$e->{name} // '', $seq, encode_json($e->{args} // {}));
	};
	$doc->{traceEvents} = [ sort { $k->($a) cmp $k->($b) } @{ $doc->{traceEvents} } ];
}

local $/;
my $in = <STDIN> // '';
if ($json) {
	my $doc = eval { decode_json($in) };
	if (!$doc) {
		print "NOT JSON: $@";
		exit 0;
	}
	sort_events($doc);
	print JSON::PP->new->canonical->pretty->encode(walk($doc, undef));
	exit 0;
}
for my $line (split /\n/, $in, -1) {
	next if $line =~ /^\s*#[1-9]\d*\s+0x/;    # frames past the innermost
	$line = text($line);
	$line =~ s/^(\s*#0\s+0x<PTR>) [^\s(]+\+0x<OFF>/$1 <FN>+0x<OFF>/;
	$line =~ s/[ \t]+/ /g;
	$line =~ s/ $//;
	print "$line\n";
}
