#pragma once
/// \file
/// The lost-rank detector (issue 20, item 3): when a rank's process ends while the job runs
/// (killed, crashed, or its host went down), Rotor itself names it and its host.
///
/// At session start every rank learns every rank's host name (one allgather), and every rank but
/// 0 opens one TCP connection to rank 0 (rank 0's IPv4 addresses, a port and a random job cookie
/// come by broadcast; a connection counts only after the cookie handshake). Nothing is sent on
/// them while the job runs; a thread per rank polls them. A connection that closes without its
/// rank's "leaving" byte (sent at session end, at exit(), and before Rotor aborts the job) is a
/// lost rank. Rank 0 prints one line, the ranks grouped by host,
///
///   [rank 0] rotor: lost contact with rank(s) 2,3 on host h2 (...)
///
/// (when rank 0 is the lost one, the first rank of every other host says so). The launcher
/// (mpirun) normally ends the job at once; when it has not after 5 s, the detector aborts it.
/// Off with --rotor-timeout=0 (with the progress watchdog), and where the connections cannot be
/// made (then rank 0 or the first failing rank prints one warning line and the job runs on).

namespace rotor::detail {

class Comm;

/// Collective: gathers the rank-to-host map, connects to rank 0, starts the polling thread.
void start_peer_watch(Comm& comm);

/// Sends the leaving byte on every connection, stops the thread, closes the connections.
void stop_peer_watch();

/// Sends the leaving byte on every connection (nothing else): before this rank aborts the job on
/// purpose, so that its peers do not report it as lost. No locks, no allocation.
void peer_watch_announce_leaving();

} // namespace rotor::detail
