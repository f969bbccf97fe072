// The library's one constructor. In a program an agent started
// (SELFSCHED_CLUSTER_CHANNEL), cluster mode starts here. In a program that
// mpirun started with SELFSCHED_CLUSTER=on (what selfsched-mpirun --cluster
// does, and what a user may do under a plain mpirun or srun), the process
// becomes its rank's agent, which starts the program again as its child.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "allocation.hpp"
#include "launch.hpp"
#include "private_view.hpp"
#include "program.hpp"
#include "selfsched/bridge.hpp"
#include "common/settings.hpp"  // the bridge's table: SELFSCHED_CLUSTER

namespace selfsched::cluster {

namespace {

// SELFSCHED_CLUSTER through the bridge's settings table; each rank reads
// it, rank 0 (or a process outside any launcher) says what is wrong with it.
bool cluster_asked() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank == nullptr) rank = std::getenv("PMIX_RANK");
  return mpi::detail::current_settings(rank == nullptr || std::strcmp(rank, "0") == 0).cluster;
}

// Replaces this process with the agent (beside this library: ../bin/).
void become_agent() {
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&become_agent), &self);
  std::string lib = self.dli_fname != nullptr ? self.dli_fname : "";
  const std::size_t slash = lib.rfind('/');
  const std::string agent = (slash == std::string::npos ? std::string(".") : lib.substr(0, slash)) +
                            "/../bin/selfsched-cluster-agent";
  std::string cmdline;
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  char buffer[4096];
  for (ssize_t n; fd >= 0 && (n = read(fd, buffer, sizeof buffer)) > 0;) cmdline.append(buffer, static_cast<std::size_t>(n));
  if (fd >= 0) close(fd);
  std::vector<char*> argv{const_cast<char*>(agent.c_str()), const_cast<char*>("--")};
  for (std::size_t at = 0; at < cmdline.size(); at = cmdline.find('\0', at) + 1) argv.push_back(cmdline.data() + at);
  argv.push_back(nullptr);
  setenv("SELFSCHED_CLUSTER_AGENT", "1", 1);
  // The agent links libselfsched too (the bridge's engine): what it would
  // report of itself (no loops) must not replace the program's profile nor
  // add lines to its messages. The agent hands these back to the program.
  for (const char* name : kept_for_program) {
    if (const char* value = std::getenv(name)) {
      setenv((std::string(kept_prefix) + name).c_str(), value, 1);
      unsetenv(name);
    }
  }
  execv(agent.c_str(), argv.data());
  std::fprintf(stderr, "selfsched: SELFSCHED_CLUSTER=on, but the agent %s cannot start (%s)\n", agent.c_str(),
               std::strerror(errno));
  _exit(70);
}

}  // namespace
}  // namespace selfsched::cluster

__attribute__((constructor)) static void start_cluster_mode() {
  using namespace selfsched::cluster;
  if (std::getenv("SELFSCHED_CLUSTER_CHANNEL") == nullptr) {
    if (cluster_asked() && std::getenv("SELFSCHED_CLUSTER_AGENT") == nullptr) become_agent();
    return;
  }
  cluster_process::start();
  if (cluster_process::get() == nullptr) return;
  selfsched::omp::bridge::add_profile_section("cluster", [] { return cluster_process::get()->profile_section(); });
  start_private_view();
}

// The program begins here: the loader has run every library's constructor
// and jumps to the executable's start code, which calls the C library's
// __libc_start_main to run the executable's own constructors, then main.
// Only from now on is what the initial thread allocates the program's.
// Taking the serial arena in our constructor would be too early: another
// library's constructor may run after it (libselfsched's asks the loader
// about every object, which runs a library's constructor as it goes), and
// what it allocated would sit in the program's heap, sized by this
// machine's state, on one rank differently than on another.
extern "C" __attribute__((visibility("default"))) int __libc_start_main(int (*main)(int, char**, char**), int argc,
                                                                      char** argv, void (*init)(), void (*fini)(),
                                                                      void (*rtld_fini)(), void* stack_end) {
  using start_fn = int (*)(int (*)(int, char**, char**), int, char**, void (*)(), void (*)(), void (*)(), void*);
  static const auto real = reinterpret_cast<start_fn>(dlsym(RTLD_NEXT, "__libc_start_main"));
  if (selfsched::cluster::cluster_process* p = selfsched::cluster::cluster_process::get()) p->begin_program();
  return real(main, argc, argv, init, fini, rtld_fini, stack_end);
}
