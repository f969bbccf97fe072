#include "launch.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace selfsched::cluster {
namespace {

// The program's dynamic loader (PT_INTERP), or "" for a static program or
// a file that is not a 64-bit ELF executable.
std::string interpreter_of(const std::string& program) {
  const int fd = open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  Elf64_Ehdr eh{};
  std::string interp;
  if (pread(fd, &eh, sizeof eh, 0) == sizeof eh && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
    for (int i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph{};
      if (pread(fd, &ph, sizeof ph, static_cast<off_t>(eh.e_phoff + i * sizeof ph)) != sizeof ph) break;
      if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > 4096) continue;
      interp.resize(ph.p_filesz);
      if (pread(fd, interp.data(), ph.p_filesz, static_cast<off_t>(ph.p_offset)) != static_cast<ssize_t>(ph.p_filesz))
        interp.clear();
      while (!interp.empty() && interp.back() == '\0') interp.pop_back();
    }
  }
  close(fd);
  return interp;
}

// The shared objects the program loads, as its loader lists them without
// running it (what ldd shows).
std::string loaded_objects(const std::string& interp, const std::string& program) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  // The environment without LD_PRELOAD, made before the fork: the child
  // makes only system calls (_Fork: see start_program).
  std::vector<char*> vars;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) vars.push_back(*e);
  vars.push_back(nullptr);
  const char* args[] = {interp.c_str(), "--list", program.c_str(), nullptr};
  const pid_t pid = _Fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execve(args[0], const_cast<char* const*>(args), vars.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

bool loads(const std::string& objects, const char* name) {
  for (std::size_t at = objects.find(name); at != std::string::npos; at = objects.find(name, at + 1))
    if (at == 0 || objects[at - 1] == '\t' || objects[at - 1] == ' ' || objects[at - 1] == '/') return true;
  return false;
}

}  // namespace

std::string check_program(const std::string& program) {
  if (access(program.c_str(), X_OK) != 0)
    return "'" + program + "' is not an executable program (" + std::strerror(errno) + ")";
  const std::string interp = interpreter_of(program);
  if (interp.empty())
    return "'" + program + "' is not a dynamically linked program: cluster mode loads selfsched into the program, "
           "which a static program cannot take";
  const std::string objects = loaded_objects(interp, program);
  if (loads(objects, "libmpi") || loads(objects, "libmpich") || loads(objects, "libpmpi"))
    return "'" + program + "' uses MPI itself: cluster mode runs programs without MPI; share its loops across ranks "
           "with a selfsched::mpi region instead (mpi_bridge/README.md)";
  if (loads(objects, "libgomp.so"))
    return "'" + program + "' uses GCC's OpenMP runtime (libgomp): cluster mode serves programs built with clang or "
           "flang (libomp); build it with clang -fopenmp";
  if (!loads(objects, "libomp.so") && !loads(objects, "libiomp5.so"))
    return "'" + program + "' is not an OpenMP program (it loads no OpenMP runtime): there is nothing to share";
  return {};
}

std::vector<std::string> program_environment(int rank, int ranks, int channel_fd, int stderr_fd) {
  std::vector<std::string> env;
  std::string preload;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string var = *e;
    // The launcher's per-rank variables: the program calls no MPI, and they
    // differ by rank (and would make the ranks' stacks differ).
    if (var.starts_with(kept_prefix)) {  // the program's own settings, kept from the agent
      env.push_back(var.substr(std::strlen(kept_prefix)));
      continue;
    }
    if (var.starts_with("OMPI_") || var.starts_with("PMIX_") || var.starts_with("OPAL_") ||
        var.starts_with("PRTE_") || var.starts_with("SELFSCHED_CLUSTER_"))
      continue;
    if (var.starts_with("LD_PRELOAD=")) {
      preload = var.substr(11);
      continue;
    }
    env.push_back(var);
  }
  // Beside this program: bin/ -> lib/.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path lib = self.parent_path().parent_path() / "lib";
  std::string ours = (lib / "libselfsched_cluster.so").string() + ":" + (lib / "libselfsched.so").string();
  // libselfsched may be preloaded already (selfsched-mpirun does): once is enough.
  std::string rest;
  for (std::size_t at = 0; at <= preload.size();) {
    const std::size_t end = std::min(preload.find_first_of(": ", at), preload.size());
    const std::string item = preload.substr(at, end - at);
    if (!item.empty() && item.find("libselfsched.so") == std::string::npos &&
        item.find("libselfsched_cluster.so") == std::string::npos)
      rest += ":" + item;
    at = end + 1;
  }
  env.push_back("LD_PRELOAD=" + ours + rest);
  // Every dynamic loop is libselfsched's, so that the ranks share it.
  bool overridden = false;
  for (const std::string& e : env) overridden = overridden || e.starts_with("SELFSCHED_OVERRIDE=");
  if (!overridden) env.push_back("SELFSCHED_OVERRIDE=dynamic,guided");
  // Calls bound at start-up: the loader's lazy binding would write the
  // program's GOT at each function's first call, on every rank.
  env.push_back("LD_BIND_NOW=1");
  env.push_back("SELFSCHED_CLUSTER_CHANNEL=" + std::to_string(channel_fd));
  env.push_back("SELFSCHED_CLUSTER_RANK=" + std::to_string(rank));
  env.push_back("SELFSCHED_CLUSTER_RANKS=" + std::to_string(ranks));
  env.push_back("SELFSCHED_CLUSTER_STDERR=" + std::to_string(stderr_fd));
  return env;
}

std::size_t environment_bytes(const std::vector<std::string>& env) {
  std::size_t bytes = 0;
  for (const std::string& e : env) bytes += e.size() + 1 + sizeof(char*);
  return bytes;
}

void pad_environment(std::vector<std::string>& env, std::size_t bytes) {
  const std::string name = "SELFSCHED_CLUSTER_PAD=";
  const std::size_t have = environment_bytes(env) + name.size() + 1 + sizeof(char*);
  env.push_back(name + std::string(bytes > have ? bytes - have : 0, 'x'));
}

int start_program(const std::vector<std::string>& argv, const std::vector<std::string>& env, bool quiet, int input) {
  // Built before the fork: the agent has threads (MPI's, the engine's), so
  // the child does only system calls until it execs. _Fork, not fork: no
  // atfork handler runs in the child (libomp's starts the runtime again
  // there, and libomp 19's aborts doing so under OMP_SCHEDULE=guided,
  // "Unhandled sched_type enumeration", even in a program of its own).
  std::vector<char*> args, vars;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) vars.push_back(const_cast<char*>(e.c_str()));
  vars.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = _Fork();
  if (pid != 0) return pid;
  // The child: gone with its agent, at the same addresses as every rank's.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  personality(ADDR_NO_RANDOMIZE);
  if (quiet) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    if (null > 2) close(null);
  }
  if (input >= 0) dup2(input, 0);
  signal(SIGPIPE, SIG_DFL);  // the agent ignores it, and ignored signals stay so across exec
  execve(args[0], args.data(), vars.data());
  _exit(127);
}

std::string make_private_directory(int rank) {
  const char* tmp = std::getenv("TMPDIR");
  const char* job = std::getenv("OMPI_MCA_ess_base_jobid");
  std::string name = std::string(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp") + "/selfsched-cluster." +
                     (job != nullptr ? std::string(job) : std::to_string(getpid())) + "." + std::to_string(rank) +
                     ".XXXXXX";
  if (mkdtemp(name.data()) == nullptr) return {};
  return name;
}

void remove_private_directory(const std::string& directory) {
  std::error_code ec;
  if (!directory.empty()) std::filesystem::remove_all(directory, ec);
}

int start_janitor() {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return -1;
  const pid_t pid = fork();
  if (pid != 0) {
    close(ends[0]);
    if (pid < 0) close(ends[1]);
    return pid < 0 ? -1 : ends[1];
  }
  // Out of the job's way: its own session, no descriptor of the launcher's
  // (mpirun waits for the output pipes to close).
  setsid();
  for (int fd = 0; fd < 1024; ++fd)
    if (fd != ends[0]) close(fd);
  std::string directory;
  char buffer[512];
  for (ssize_t n; (n = read(ends[0], buffer, sizeof buffer)) != 0;)
    if (n > 0) directory.append(buffer, static_cast<std::size_t>(n));
  remove_private_directory(directory);
  _exit(0);
}

void tell_janitor(int janitor, const std::string& directory) {
  if (janitor >= 0 && !directory.empty()) (void)!write(janitor, directory.data(), directory.size());
}

}  // namespace selfsched::cluster
