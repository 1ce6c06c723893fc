#!/usr/bin/env bash
# Keeps the layering of DESIGN.md by a check (run by scripts/test.sh before the build):
#
#  1. No raw system call outside Sources/SystemIO and the C shims (Sources/C<Name>/): sockets,
#     name lookup, files, descriptors, epoll/timerfd/eventfd, processes, signals, namespaces, limits.
#     A call is matched as a call: `Glibc.x(` (or Darwin., Musl.) anywhere; names no Swift API here
#     uses (`getaddrinfo(`, `setsockopt(`, `epoll_wait(`, `posix_spawn(`, …) after anything but a `.`
#     or `func`; and the short names Swift methods share (`socket`, `send`, `recv`, `read`, `write`,
#     `open`, `close`, `connect`, `bind`, `signal`, …) only when called with exactly their C arity of
#     unlabelled arguments, so `close()`, `send(id, on: c)` or `write(results, to: dir)` are not calls
#     of libc. Tests are not checked: they play hostile peers and probe ports on purpose.
#  2. No clock read inside the protocol engines and the link model (Sources/QUIC, HTTPCodec, TLS,
#     LinkModel): `Instant.now(`, `clock_gettime`, `Date()`, `Date.now`, `DispatchTime.now`,
#     `ContinuousClock`, … — they are driven by a `now` their caller passes in.
#
# Comments and string literals are not code and are skipped.
# scripts/layering-allow.txt lists what stays on purpose, one `path: pattern  # why it stays` a line
# (pattern: a Perl regular expression matched against the offending source line). An entry without
# its reason, or one that no longer matches a finding, is an error too, so the list cannot rot.
#
# Prints each finding as file:line and exits 1 when there is any; 0 when the layering holds.
# Usage: scripts/check-layering.sh [--allow FILE]   (run from anywhere; checks this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
allow=scripts/layering-allow.txt
if [[ "${1:-}" == "--allow" ]]; then allow=$2; fi
[[ -f "$allow" ]] || { echo "check-layering: no allow-list at $allow" >&2; exit 2; }

find Sources -type f \( -name '*.swift' -o -name '*.c' -o -name '*.h' \) | LC_ALL=C sort |
ALLOW="$allow" perl -e '
use strict; use warnings;

# Names no Swift API of netbench shares: any call outside SystemIO is libc.
my @distinct = qw(getaddrinfo freeaddrinfo getnameinfo gethostbyname gai_strerror setsockopt getsockopt
    getsockname getpeername sendto sendmsg sendmmsg recvfrom recvmsg recvmmsg accept4 socketpair
    eventfd ioctl fcntl prctl setns unshare fork vfork execv execve execvp execvpe execl execlp execle
    posix_spawn posix_spawnp waitpid wait4 pipe2 dup2 dup3 clock_gettime clock_nanosleep nanosleep
    sched_setscheduler setpriority setrlimit getrlimit sigaction sigprocmask pthread_sigmask
    mmap munmap fsync fdatasync ftruncate lseek pread pwrite readv writev openat mkfifo sendfile splice);
my $distinct = join("|", @distinct);
# Names Swift methods share: a call of libc only with exactly this many unlabelled arguments.
my %arity = (socket => [3], bind => [3], connect => [3], listen => [2], accept => [3],
    send => [4], recv => [4], open => [2, 3], creat => [2], read => [3], write => [3], close => [1],
    poll => [3], select => [5], kill => [2], signal => [2], pipe => [1], dup => [1], shutdown => [2],
    unlink => [1], rename => [2], mkdir => [2], rmdir => [1], chdir => [1]);
my $short = join("|", sort keys %arity);
my @clocks = (q{Instant\.now\(}, q{\bclock_gettime\b}, q{\bDate\(\)}, q{\bDate\.now\b}, q{\bDispatchTime\.now\(},
    q{\bDispatchWallTime\.now\(}, q{\bContinuousClock\b}, q{\bSuspendingClock\b}, q{\bgettimeofday\(},
    q{\btime\(nil\)}, q{CFAbsoluteTimeGetCurrent}, q{\bsystemUptime\b}, q{timeIntervalSinceNow});
my $engines = qr{^Sources/(QUIC|HTTPCodec|TLS|LinkModel)/};
my $exempt = qr{^Sources/(SystemIO|C[A-Z][A-Za-z0-9]*)/};

# The allow-list: [path, regex, why, line number, used].
my @allow;
open(my $af, "<", $ENV{ALLOW}) or die "check-layering: $ENV{ALLOW}: $!\n";
my $bad = 0;
while (my $l = <$af>) {
    chomp $l;
    next if $l =~ /^\s*(#|$)/;
    if ($l =~ /^(\S+):\s+(.*?)\s+#\s*(\S.*)$/) {
        my ($p, $re, $why) = ($1, $2, $3);
        my $rx = eval { qr/$re/ };
        if (!$rx) { print "$ENV{ALLOW}:$.: not a regular expression: $re\n"; $bad++; next; }
        push @allow, [$p, $rx, $why, $., 0];
    } else {
        print "$ENV{ALLOW}:$.: expected `path: pattern  # why it stays`: $l\n"; $bad++;
    }
}
close $af;

# Split an argument list (text after the open paren) at top-level commas; undef when unclosed.
sub arguments {
    my ($text) = @_;
    my ($depth, $cur, @args) = (0, "", ());
    for my $c (split //, $text) {
        if ($c =~ /[(\[{]/) { $depth++; }
        elsif ($c =~ /[)\]}]/) {
            if ($depth == 0) { push @args, $cur if $cur =~ /\S/ || @args; return \@args; }
            $depth--;
        } elsif ($c eq "," && $depth == 0) { push @args, $cur; $cur = ""; next; }
        $cur .= $c;
    }
    return undef;
}

sub findings_in {
    my ($path, $code, $joined) = @_;
    my @found;
    unless ($path =~ $exempt) {
        push @found, "raw system call $1(" while $code =~ /\b((?:Glibc|Darwin|Musl)\.[a-z_]\w*)\s*\(/g;
        my $named = qr/(?<![.\w])(?<!func )($distinct|epoll_\w+|timerfd_\w+|inotify_\w+)\s*\(/;
        push @found, "raw system call $1(" while $code =~ /$named/g;
        while ($joined =~ /(?<![.\w])(?<!func )($short)\(/g) {
            last if $-[0] >= length($code);
            my $name = $1;
            my $args = arguments(substr($joined, pos($joined)));
            next unless defined $args;
            next if grep { /^\s*[A-Za-z_]\w*:(?!:)/ } @$args;
            my $n = scalar @$args;
            push @found, "raw system call $name( with $n arguments" if grep { $_ == $n } @{$arity{$name}};
        }
    }
    if ($path =~ $engines) {
        for my $c (@clocks) { push @found, "clock read $&" while $code =~ /$c/g; }
    }
    return @found;
}

my @findings;
while (my $path = <STDIN>) {
    chomp $path;
    open(my $fh, "<", $path) or die "check-layering: $path: $!\n";
    my @lines = <$fh>;
    close $fh;
    # Code only: string literals and comments blanked (multi-line strings and block comments too).
    my ($inString, $inBlock) = (0, 0);
    my @code;
    for my $l (@lines) {
        my $c = $l;
        chomp $c;
        if ($inString) { if ($c =~ s/^.*?"""//) { $inString = 0; } else { push @code, ""; next; } }
        if ($inBlock) { if ($c =~ s{^.*?\*/}{}) { $inBlock = 0; } else { push @code, ""; next; } }
        if ($c =~ s/""".*$//) { $inString = 1; }
        $c =~ s/"(?:[^"\\]|\\.)*"/""/g;
        $c =~ s{/\*.*?\*/}{}g;
        if ($c =~ s{/\*.*$}{}) { $inBlock = 1; }
        $c =~ s{//.*$}{};
        push @code, $c;
    }
    for my $i (0 .. $#code) {
        next unless $code[$i] =~ /\S/;
        my $joined = join(" ", @code[$i .. ($i + 4 > $#code ? $#code : $i + 4)]);
        for my $what (findings_in($path, $code[$i], $joined)) {
            my $source = $lines[$i];
            chomp $source;
            my @hit = grep { $_->[0] eq $path && $source =~ $_->[1] } @allow;
            if (@hit) { $_->[4]++ for @hit; next; }
            (my $shown = $source) =~ s/^\s+//;
            push @findings, sprintf("%s:%d: %s: %s", $path, $i + 1, $what, $shown);
        }
    }
}
print "$_\n" for @findings;
for my $a (@allow) {
    next if $a->[4];
    printf "%s:%d: allow-list entry matches nothing (remove it): %s\n", $ENV{ALLOW}, $a->[3], $a->[0];
    $bad++;
}
if (@findings || $bad) {
    printf "check-layering: %d finding(s), %d allow-list error(s); see the header of scripts/check-layering.sh\n",
        scalar @findings, $bad;
    exit 1;
}
printf "check-layering: ok (%d allowed on purpose, listed in %s)\n", scalar @allow, $ENV{ALLOW};
'
