// selfsched-cluster-agent: one per rank, started by mpirun under
// selfsched-mpirun --cluster. It checks the program, starts it (channel.hpp)
// and does its MPI: every collective a parallel region needs, announced
// first, so ranks whose programs took different paths stop with a message
// instead of waiting for each other for ever.
#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "channel.hpp"
#include "common/settings.hpp"
#include "early_writes_relay.hpp"
#include "regions/engine.hpp"
#include "launch.hpp"
#include "mpi_wait.hpp"
#include "single_claims.hpp"
#include "stdin_relay.hpp"

namespace selfsched::cluster {
namespace {

// Ends the whole job after a message on stderr: a moment first, so that
// mpirun forwards the message before it kills the ranks.
[[noreturn]] void end_job(MPI_Comm comm, int status = 70) {
  std::fflush(stderr);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  MPI_Abort(comm, status);
  std::abort();
}

std::atomic<bool> program_ended{false};
channel* the_channel = nullptr;

void on_child(int) {
  program_ended.store(true, std::memory_order_release);
  if (the_channel != nullptr) the_channel->wake_agent();
}

const char* kind_name(std::int64_t kind) {
  switch (static_cast<request_kind>(kind)) {
    case request_kind::exchange: return "merging memory";
    case request_kind::gather: return "combining a reduction";
    case request_kind::barrier: return "at a barrier";
    case request_kind::file_change: return "changing a file";
    default: return "ending";  // finish
  }
}
constexpr std::int64_t finish_kind = 1000;

class agent {
 public:
  agent(MPI_Comm comm, channel& ch, mpi::detail::engine& loops, std::chrono::milliseconds early_after)
      : comm_(comm), channel_(ch), loops_(loops), early_(comm, ch, early_after, program_ended), singles_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
  }

  // Serves the program until it ends; returns its exit status.
  int serve(pid_t program) {
    // While the program computes, other ranks' early writes are served
    // every 10 ms (early_writes_relay.hpp): they are offered only after a
    // rank has waited SELFSCHED_CLUSTER_EARLY_WRITES (50) ms, and each
    // wake-up takes the program's core for tens of microseconds on a VM
    // (at 2 ms, 2% of it).
    const auto idle = [](void* self) {
      auto* a = static_cast<agent*>(self);
      a->early_.while_program_runs([a] { a->stop_if_program_killed(); });
    };
    while (channel_.wait_request(program_ended, idle, this, 10'000)) handle();
    int status = 0;
    waitpid(program, &status, 0);
    if (WIFSIGNALED(status)) {
      std::fprintf(stderr, "selfsched-mpirun --cluster: rank %d's program was killed by signal %d (%s); stopping the job\n",
                   rank_, WTERMSIG(status), strsignal(WTERMSIG(status)));
      end_job(comm_);
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 70;
    announce(finish_kind, code);
    early_.drop_offers();
    return code;
  }

 private:
  void handle() {
    channel_control& c = channel_.control();
    switch (c.kind) {
      case request_kind::exchange:
      case request_kind::file_change: exchange(); break;
      case request_kind::gather: gather(); break;
      case request_kind::barrier: announce(static_cast<std::int64_t>(request_kind::barrier), 0); break;
      case request_kind::loop_begin:
        c.results[0] = static_cast<std::int64_t>(loops_.loop_begin_elsewhere(static_cast<std::uint64_t>(c.args[1]), c.args[0]));
        break;
      case request_kind::next_outer: {
        const chunk next = loops_.next_outer();
        c.results[0] = next.start;
        c.results[1] = next.size;
        break;
      }
      case request_kind::progress:
        c.results[0] = loops_.progress(static_cast<std::uint64_t>(c.args[0]), c.args[1], c.args[2]) ? 1 : 0;
        break;
      case request_kind::single_claim:
        c.results[0] = static_cast<std::int64_t>(
            singles_.claim(static_cast<std::uint64_t>(c.args[0]), static_cast<std::uint64_t>(c.args[1])));
        break;
      case request_kind::loop_end: loops_.loop_end(); break;
      case request_kind::parallel_end: loops_.parallel_end(); break;
      case request_kind::fatal:
        std::fprintf(stderr, "%s\n", c.text);
        std::fflush(stderr);
        end_job(comm_);
        break;
      default:
        c.results[0] = -1;  // not served here
        break;
    }
    channel_.answer();
  }

  // Every rank says what it does next and with how many bytes; all must do
  // the same. Returns every rank's byte count.
  std::vector<std::int64_t> announce(std::int64_t kind, std::int64_t bytes) {
    std::int64_t mine[2] = {kind, bytes};
    std::vector<std::int64_t> all(2 * static_cast<std::size_t>(ranks_));
    MPI_Request r;
    MPI_Iallgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm_, &r);
    early_.collective_begins();
    const bool merge = kind == static_cast<std::int64_t>(request_kind::exchange) && channel_.control().merge_window != 0;
    wait_without_spinning(r, std::chrono::milliseconds(1), [this, merge] {
      stop_if_program_killed();
      early_.while_waiting(merge);
    });
    std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks_));
    // exit() inside a parallel region (an error path) on some rank while
    // another merges: the job ends with that program's status, as one
    // process would.
    int exited = -1, other = -1;
    for (int q = 0; q < ranks_; ++q) (all[2 * q] == finish_kind ? exited : other) = q;
    if (rank_ == 0 && exited >= 0 && other >= 0) {
      std::fprintf(stderr,
                   "selfsched-mpirun --cluster: rank %d's program exited (status %lld) inside a parallel region "
                   "while rank %d is %s; ending the job with its status\n",
                   exited, static_cast<long long>(all[2 * exited + 1]), other, kind_name(all[2 * other]));
      end_job(comm_, static_cast<int>(all[2 * exited + 1]));
    }
    for (int q = 0; q < ranks_; ++q) {
      counts[q] = all[2 * q + 1];
      if (all[2 * q] != kind && rank_ == 0) {
        const int other = q;
        std::fprintf(stderr,
                     "selfsched-mpirun --cluster: the ranks' programs went different ways: rank 0 is %s while rank %d "
                     "is %s; stopping the job\n",
                     kind_name(kind), other, kind_name(all[2 * q]));
        std::fflush(stderr);
        end_job(comm_);
      }
    }
    // Everyone agreed; a rank that disagreed waits for rank 0's abort.
    for (int q = 0; q < ranks_; ++q)
      if (all[2 * q] != kind) for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    return counts;
  }

  // Where each rank's bytes land in the incoming area (64-byte aligned),
  // told to the program in the control block, and MPI's counts for them.
  struct placement {
    std::vector<int> sizes, offsets;
    std::uint64_t end = 0;
  };
  placement place_incoming(const std::vector<std::int64_t>& counts) {
    channel_control& c = channel_.control();
    placement p{std::vector<int>(counts.size()), std::vector<int>(counts.size()), 0};
    for (std::size_t q = 0; q < counts.size(); ++q) {
      if (counts[q] > INT32_MAX || p.end > INT32_MAX) too_big();
      p.sizes[q] = static_cast<int>(counts[q]);
      p.offsets[q] = static_cast<int>(p.end);
      c.received[q] = {p.end, static_cast<std::uint64_t>(counts[q])};
      p.end = (p.end + static_cast<std::uint64_t>(counts[q]) + 63) & ~std::uint64_t{63};
    }
    if (p.end > channel_layout::incoming_bytes) too_big();
    return p;
  }

  void exchange() {
    channel_control& c = channel_.control();
    const placement p =
        place_incoming(announce(static_cast<std::int64_t>(c.kind), static_cast<std::int64_t>(c.outgoing_bytes)));
    channel_.populate(channel_.outgoing(), c.outgoing_bytes, false);
    channel_.populate(channel_.incoming(), p.end, true);
    MPI_Request r;
    MPI_Iallgatherv(channel_.outgoing(), static_cast<int>(c.outgoing_bytes), MPI_BYTE, channel_.incoming(),
                    p.sizes.data(), p.offsets.data(), MPI_BYTE, comm_, &r);
    wait_for_bytes(r, p.end);
  }

  void gather() {
    channel_control& c = channel_.control();
    const placement p = place_incoming(
        announce(static_cast<std::int64_t>(request_kind::gather), static_cast<std::int64_t>(c.outgoing_bytes)));
    MPI_Request r;
    MPI_Igatherv(channel_.outgoing(), static_cast<int>(c.outgoing_bytes), MPI_BYTE, channel_.incoming(),
                 p.sizes.data(), p.offsets.data(), MPI_BYTE, 0, comm_, &r);
    wait_for_bytes(r, p.end);
  }

  [[noreturn]] void too_big() {
    std::fprintf(stderr, "selfsched-mpirun --cluster: rank %d: one synchronization point moves more than 2 GiB per rank, "
                         "more than the agent can send at once; stopping the job\n", rank_);
    end_job(comm_);
    std::abort();
  }

  // After announce(): every rank is in the exchange, its bytes ready; only
  // the transfer is left, and it needs MPI called. Polled for as long as the
  // bytes take at 100 MB/s (a slow link), 200 ms at least: over TCP between
  // two nodes, 72 MB polled for 200 ms and then tested every millisecond
  // took 210-350 ms, each test moving one fragment.
  void wait_for_bytes(MPI_Request& r, std::uint64_t bytes) {
    const auto patience = std::chrono::milliseconds(200) + std::chrono::microseconds(bytes / 100);
    wait_for_ready_ranks(r, patience, std::chrono::milliseconds(1), [this] { stop_if_program_killed(); });
  }

  // Left for serve() to reap (WNOWAIT): a program that exited keeps its status.
  void stop_if_program_killed() {
    if (!program_ended.load(std::memory_order_acquire)) return;
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0 &&
        (info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED)) {
      std::fprintf(stderr, "selfsched-mpirun --cluster: rank %d's program was killed by signal %d (%s); stopping the job\n",
                   rank_, info.si_status, strsignal(info.si_status));
      end_job(comm_);
    }
  }

  MPI_Comm comm_;
  channel& channel_;
  mpi::detail::engine& loops_;
  early_writes_relay early_;
  single_claims singles_;  // which rank runs each single
  int rank_ = 0, ranks_ = 1;
};

std::string on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  for (std::string dirs = path ? path : "/usr/bin:/bin"; !dirs.empty();) {
    const std::size_t colon = dirs.find(':');
    const std::string dir = dirs.substr(0, colon);
    dirs = colon == std::string::npos ? "" : dirs.substr(colon + 1);
    const std::string full = (dir.empty() ? "." : dir) + "/" + name;
    if (access(full.c_str(), X_OK) == 0) return full;
  }
  return name;
}

// The program and its arguments from the command line; an exit code
// instead for --help, --version, or no program.
int parse_arguments(int argc, char** argv, std::vector<std::string>& args) {
  int first = 1;
  if (first < argc && std::strcmp(argv[first], "--help") == 0) {
    std::printf(
        "usage: selfsched-cluster-agent [--] PROGRAM [ARGS...]\n"
        "One rank's agent in cluster mode: it checks PROGRAM, does the rank's MPI, and starts PROGRAM\n"
        "with libselfsched_cluster preloaded, address randomization off, and the environment of every\n"
        "rank padded to one size. It is started by selfsched-mpirun --cluster (or by a program run\n"
        "under mpirun with SELFSCHED_CLUSTER=on), not by hand; see docs/cluster.md.\n"
        "  --help, --version\n");
    return 0;
  }
  if (first < argc && std::strcmp(argv[first], "--version") == 0) {
    std::printf("selfsched-cluster-agent %s\n", SELFSCHED_VERSION);
    return 0;
  }
  if (first < argc && std::strcmp(argv[first], "--") == 0) {
    ++first;
  } else if (first < argc && argv[first][0] == '-') {
    std::fprintf(stderr, "selfsched-cluster-agent: unknown option '%s' (valid: --help, --version, -- PROGRAM)\n",
                 argv[first]);
    return 2;
  }
  if (first >= argc) {
    std::fprintf(stderr, "selfsched-cluster-agent: no program given\n"
                         "usage: selfsched-cluster-agent [--] PROGRAM [ARGS...] (started by selfsched-mpirun --cluster)\n");
    return 2;
  }
  args.assign(argv + first, argv + argc);
  args[0] = on_path(args[0]);
  return -1;
}

// Rank 0 decides whether the program can run; everyone hears why not ("": it can).
std::string why_program_cannot_run(MPI_Comm comm, int rank, const std::string& program) {
  std::string why = rank == 0 ? check_program(program) : std::string();
  int length = static_cast<int>(why.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  why.resize(static_cast<std::size_t>(length));
  MPI_Bcast(why.data(), length, MPI_CHAR, 0, comm);
  return why;
}

// Every rank's standard output buffered as rank 0's (a terminal under
// mpirun: by lines, in blocks of its size): the C library sizes the buffer
// it allocates by the file, and the others write to /dev/null.
std::string stdout_mode_of_rank_zero(MPI_Comm comm) {
  int out[2] = {isatty(1), 0};
  struct stat st{};
  if (fstat(1, &st) == 0) out[1] = static_cast<int>(st.st_blksize);
  MPI_Bcast(out, 2, MPI_INT, 0, comm);
  return std::string(out[0] ? "line:" : "full:") + std::to_string(out[1] > 0 ? out[1] : BUFSIZ);
}

// The program's environment, of the same size on every rank: its stack
// starts at the same address everywhere.
std::vector<std::string> padded_environment(MPI_Comm comm, int rank, int ranks, int channel_fd,
                                            const std::string& private_directory) {
  const int error_fd = dup(2);
  std::vector<std::string> env = program_environment(rank, ranks, channel_fd, error_fd);
  env.push_back("SELFSCHED_CLUSTER_STDOUT=" + stdout_mode_of_rank_zero(comm));
  // On every rank, empty on rank 0: the same number of variables, so that
  // padding can even out their bytes (the kernel aligns the stack after them).
  env.push_back("SELFSCHED_CLUSTER_PRIVATE=" + private_directory);
  unsigned long long bytes = environment_bytes(env) + 64, largest = 0;
  MPI_Allreduce(&bytes, &largest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  pad_environment(env, largest);
  return env;
}

}  // namespace
}  // namespace selfsched::cluster

int main(int argc, char** argv) {
  using namespace selfsched::cluster;
  std::vector<std::string> args;
  if (const int code = parse_arguments(argc, argv, args); code >= 0) return code;
  // A closed standard input would make the next descriptor opened fd 0.
  if (fcntl(0, F_GETFD) < 0) open("/dev/null", O_RDONLY);
  // A program that stops reading its standard input: the relay's write fails instead.
  signal(SIGPIPE, SIG_IGN);
  const int janitor = start_janitor();

  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  if (const std::string why = why_program_cannot_run(comm, rank, args[0]); !why.empty()) {
    if (rank == 0) std::fprintf(stderr, "selfsched-mpirun --cluster: %s\n", why.c_str());
    MPI_Finalize();
    return 2;
  }

  const int fd = channel::create();
  channel ch(fd);
  if (fd < 0 || !ch.ready()) {
    std::fprintf(stderr, "selfsched-mpirun --cluster: rank %d cannot make its channel to the program (%s)\n", rank,
                 std::strerror(errno));
    end_job(comm);
  }
  ch.control().rank = rank;
  ch.control().ranks = ranks;
  ch.control().magic = channel_magic;
  the_channel = &ch;

  auto input = std::make_unique<stdin_relay>(comm, provided);
  const std::string private_directory = rank != 0 ? make_private_directory(rank) : std::string();
  if (rank != 0 && private_directory.empty()) {
    std::fprintf(stderr, "selfsched-mpirun --cluster: rank %d cannot make its directory for private copies of the "
                 "program's files in %s (%s)\n", rank, std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp",
                 std::strerror(errno));
    end_job(comm);
  }
  tell_janitor(janitor, private_directory);
  const std::vector<std::string> env = padded_environment(comm, rank, ranks, fd, private_directory);

  int code = 0;
  {
    // Everything the agent needs is set up before the program starts (the
    // engine and the one-sided windows take 5-100 ms of collectives here):
    // started first, the program would wait that long at its first parallel
    // region, inside the time it measures for it.
    // The program's dynamic loops: outer chunks from the bridge's transports.
    selfsched::mpi::detail::engine loops(comm, selfsched::mpi::options(), selfsched::mpi::detail::serving::program_elsewhere);
    const double early_ms = selfsched::mpi::detail::current_settings(rank == 0).early_writes_ms;
    agent a(comm, ch, loops, std::chrono::milliseconds(early_ms < 0 ? -1 : static_cast<long>(early_ms)));
    struct sigaction sa{};
    sa.sa_handler = on_child;
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, nullptr);
    const pid_t pid = start_program(args, env, rank != 0, input->program_input());
    if (pid < 0) {
      std::fprintf(stderr, "selfsched-mpirun --cluster: rank %d cannot start '%s' (%s)\n", rank, args[0].c_str(),
                   std::strerror(errno));
      end_job(comm);
    }
    input->start();
    code = a.serve(pid);
  }
  input->finish();
  input.reset();
  remove_private_directory(private_directory);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return code;
}
