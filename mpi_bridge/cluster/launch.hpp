// How an agent starts its rank's program: whether the program can run in
// cluster mode at all, the environment it gets (the same size on every
// rank, so its stack starts at the same address), and the child process.
#pragma once

#include <string>
#include <vector>

namespace selfsched::cluster {

// libselfsched's settings that are the program's alone: the process that
// becomes the agent passes them on under kept_prefix, out of its own
// libselfsched's sight, and the program gets them back.
inline constexpr const char* kept_for_program[] = {"SELFSCHED_PROFILE", "SELFSCHED_VERBOSE"};
inline constexpr const char* kept_prefix = "SELFSCHED_CLUSTER_KEPT_";

// "" when the program can run in cluster mode, else why not (one line):
// not found, static, not an OpenMP program, GCC's libgomp, calls MPI.
std::string check_program(const std::string& program);

// The program's environment: ours without the launcher's per-rank MPI
// variables, with the libraries preloaded and the channel named.
std::vector<std::string> program_environment(int rank, int ranks, int channel_fd, int stderr_fd);
// Bytes the environment takes on the program's stack.
std::size_t environment_bytes(const std::vector<std::string>& env);
// Pads `env` to `bytes` (>= environment_bytes(env)) with one variable.
void pad_environment(std::vector<std::string>& env, std::size_t bytes);

// Starts the program with address randomization off, killed if the agent
// dies; a rank other than 0 writes its standard output and error nowhere;
// `input` (>= 0) is its standard input. Returns its pid, or -1 (errno says
// why).
int start_program(const std::vector<std::string>& argv, const std::vector<std::string>& env, bool quiet, int input);

// A rank other than 0 keeps its program's private copies of the files it
// writes (private_view.hpp) in a directory of its own under $TMPDIR (or
// /tmp), made here and removed when the program ended. "" when it cannot be
// made (errno says why).
std::string make_private_directory(int rank);
void remove_private_directory(const std::string& directory);

// A job stopped by an error kills the agents before they clean up: a
// process of their own (started before MPI_Init, while the agent has one
// thread) outlives each, and removes the directory named on the returned
// descriptor once the agent is gone, however it ended. -1 if none started.
int start_janitor();
void tell_janitor(int janitor, const std::string& directory);

}  // namespace selfsched::cluster
