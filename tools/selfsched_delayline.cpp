// selfsched-delayline: an Ethernet switch with a fixed delay, in user space,
// for selfsched-netns where the kernel has no tc netem.
//
//   selfsched-delayline --delay 100us PORT...
//
// Creates one TAP device per PORT name (the caller moves each into its
// network namespace), prints "ready" on stdout once they exist, then
// forwards every frame that arrives on one port to the port its destination
// MAC was last seen on (all other ports for broadcasts and unknown
// addresses) `delay` after it arrived, in arrival order. Runs until SIGTERM,
// SIGINT or the end of its standard input.
//
// The delay is kept with ppoll's nanosecond timeouts and a timer slack of
// 1 ns; what the scheduler adds on a busy machine comes on top (measured by
// selfsched-netns's callers, never assumed).
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr std::size_t max_frame = 65536 + 64;

std::int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "selfsched-delayline: %s\n", message.c_str());
  std::exit(2);
}

// "100us", "1.5ms", "0": nanoseconds, or -1.
std::int64_t parse_delay(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || value < 0) return -1;
  const std::string unit = end;
  const double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : -1;
  if (scale < 0 && !(unit.empty() && value == 0)) return -1;
  return static_cast<std::int64_t>(value * (scale < 0 ? 0 : scale));
}

int open_tap(const std::string& name) {
  if (name.empty() || name.size() >= IFNAMSIZ) die("port name '" + name + "' must have 1 to 15 characters");
  const int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) die(std::string("cannot open /dev/net/tun: ") + std::strerror(errno));
  ifreq request{};
  request.ifr_flags = IFF_TAP | IFF_NO_PI;
  std::memcpy(request.ifr_name, name.c_str(), name.size());
  if (ioctl(fd, TUNSETIFF, &request) < 0) die("cannot create TAP device '" + name + "': " + std::strerror(errno));
  return fd;
}

struct pending {
  std::int64_t due_ns;
  int from;
  std::vector<unsigned char> frame;
};

// A TAP device destroyed under our descriptor (its namespace removed).
bool gone(int error) { return error == EBADFD || error == ENODEV || error == EBADF || error == ENXIO; }

volatile sig_atomic_t stopping = 0;
void stop(int) { stopping = 1; }

struct options {
  std::int64_t delay = -1;
  std::vector<std::string> names;
};

// The command line; exits after --help or --version.
options parse_options(int argc, char** argv) {
  options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--delay" && a + 1 < argc) {
      o.delay = parse_delay(argv[++a]);
      if (o.delay < 0) die(std::string("--delay '") + argv[a] + "' is not a time such as 100us, 1ms or 0");
    } else if (arg == "--help") {
      std::puts("usage: selfsched-delayline --delay TIME PORT...\n"
                "An Ethernet switch in user space that delivers every frame TIME after it arrived\n"
                "(e.g. 100us), between TAP devices it creates with the PORT names; prints \"ready\"\n"
                "once they exist; runs until SIGTERM or the end of its standard input.\n"
                "selfsched-netns uses it for --latency where the kernel has no tc netem.");
      std::exit(0);
    } else if (arg == "--version") {
      std::printf("selfsched-delayline %s\n", SELFSCHED_VERSION);
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-') {
      die("unknown option '" + arg + "'; valid: --delay TIME, --help, --version");
    } else {
      o.names.push_back(arg);
    }
  }
  if (o.delay < 0) die("--delay TIME is required");
  if (o.names.size() < 2) die("give at least two ports");
  return o;
}

// The switch: its ports (then standard input, whose end ends it), where
// each MAC was last seen, and the frames on the line.
class delay_switch {
 public:
  enum class woke { traffic, interrupted, input_ended };

  delay_switch(std::int64_t delay, const std::vector<std::string>& names) : delay_(delay), buffer_(max_frame) {
    for (const std::string& name : names) polled_.push_back({open_tap(name), POLLIN, 0});
    ports_ = polled_.size();
    polled_.push_back({STDIN_FILENO, POLLIN, 0});  // its end ends the switch
  }

  // Delivers the frames that are due to the port of their destination, or
  // to every other port for broadcasts and unknown addresses.
  void deliver_due() {
    const std::int64_t now = now_ns();
    while (!line_.empty() && line_.front().due_ns <= now) {
      const pending& p = line_.front();
      std::array<unsigned char, 6> to{};
      std::memcpy(to.data(), p.frame.data(), 6);
      const auto found = where_.find(to);
      const bool unicast = (to[0] & 1) == 0 && found != where_.end();
      for (std::size_t k = 0; k < ports_; ++k) {
        if (static_cast<int>(k) == p.from || (unicast && static_cast<int>(k) != found->second) || polled_[k].fd < 0)
          continue;
        // A full queue or a port that is down (EIO: not up yet) loses the
        // frame, as a wire would; a port whose namespace was removed is gone.
        if (write(polled_[k].fd, p.frame.data(), p.frame.size()) < 0 && gone(errno)) polled_[k].fd = -1;
      }
      line_.pop_front();
    }
  }

  // Waits for a frame, the next frame's due time, a signal or input's end.
  woke wait() {
    timespec wait{};
    const timespec* timeout = nullptr;
    if (!line_.empty()) {
      const std::int64_t left = std::max<std::int64_t>(0, line_.front().due_ns - now_ns());
      wait = {static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
      timeout = &wait;
    }
    if (ppoll(polled_.data(), polled_.size(), timeout, nullptr) < 0) {
      if (errno == EINTR) return woke::interrupted;
      die(std::string("ppoll: ") + std::strerror(errno));
    }
    if (polled_[ports_].revents != 0) {
      const ssize_t got = read(STDIN_FILENO, buffer_.data(), buffer_.size());
      if (got <= 0) return woke::input_ended;
    }
    return woke::traffic;
  }

  // Puts every frame that arrived on the line, due `delay` from now, and
  // learns where its source MAC is.
  void take_frames() {
    for (std::size_t k = 0; k < ports_; ++k) {
      if (polled_[k].revents == 0) continue;
      if ((polled_[k].revents & (POLLHUP | POLLNVAL)) != 0) polled_[k].fd = -1;  // the port is gone
      for (;;) {
        if (polled_[k].fd < 0) break;
        const ssize_t got = read(polled_[k].fd, buffer_.data(), buffer_.size());
        if (got < 0) {
          if (gone(errno)) polled_[k].fd = -1;
          break;
        }
        if (got < 14) continue;  // shorter than an Ethernet header
        std::array<unsigned char, 6> from{};
        std::memcpy(from.data(), buffer_.data() + 6, 6);
        where_[from] = static_cast<int>(k);
        line_.push_back({now_ns() + delay_, static_cast<int>(k), {buffer_.begin(), buffer_.begin() + got}});
      }
    }
  }

 private:
  std::int64_t delay_;
  std::vector<pollfd> polled_;
  std::size_t ports_ = 0;
  std::map<std::array<unsigned char, 6>, int> where_;  // MAC -> port it was last seen on
  std::deque<pending> line_;                            // in arrival order, so in due order
  std::vector<unsigned char> buffer_;
};

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_options(argc, argv);
  prctl(PR_SET_TIMERSLACK, 1UL);
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  delay_switch line(o.delay, o.names);
  std::printf("ready\n");
  std::fflush(stdout);
  while (!stopping) {
    line.deliver_due();
    const delay_switch::woke woke = line.wait();
    if (woke == delay_switch::woke::interrupted) continue;
    if (woke == delay_switch::woke::input_ended) break;
    line.take_frames();
  }
  return 0;
}
