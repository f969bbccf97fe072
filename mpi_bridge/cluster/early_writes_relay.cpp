#include "early_writes_relay.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <thread>

namespace selfsched::cluster {
namespace {

constexpr int offer_tag = 0x5e01, request_tag = 0x5e02, diffs_tag = 0x5e03;

// Polls a request that the other side has matched or is about to (it
// answers at once): no sleep, which would stall a large transfer.
template <typename Check>
void finish(MPI_Request& r, Check check, MPI_Status* status = MPI_STATUS_IGNORE) {
  for (unsigned polls = 1;; ++polls) {
    int done = 0;
    MPI_Test(&r, &done, status);
    if (done) return;
    if (polls % 64 == 0) check();
    sched_yield();
  }
}

// The next short message with `tag` from any rank, if one has come: its
// count int64 values into `body`, the sender into `from`.
bool receive_arrived(MPI_Comm comm, int tag, std::int64_t* body, int count, int& from) {
  int there = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &there, &status);
  if (!there) return false;
  from = status.MPI_SOURCE;
  MPI_Recv(body, count, MPI_INT64_T, from, tag, comm, MPI_STATUS_IGNORE);
  return true;
}

}  // namespace

early_writes_relay::early_writes_relay(MPI_Comm comm, channel& ch, std::chrono::milliseconds after,
                                       const std::atomic<bool>& program_ended)
    : comm_(comm), channel_(ch), after_(after), program_ended_(program_ended) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
}

void early_writes_relay::collective_begins() {
  ++collectives_;
  offered_ = false;
  waiting_since_ = std::chrono::steady_clock::now();
  forget_sent_offers();
}

void early_writes_relay::while_waiting(bool merge) {
  serve_requests();
  drop_offers();  // another waiting rank's offer of this collective: this rank is past computing
  if (offered_ || !merge || after_.count() < 0 || ranks_ < 2) return;
  if (std::chrono::steady_clock::now() - waiting_since_ < after_) return;
  const std::uint64_t bytes = channel_.control().outgoing_bytes;
  offered_ = true;
  if (bytes > INT_MAX) return;  // more than one message carries: left for the merge
  auto offer = std::make_unique<sent_offer>();
  offer->body[0] = collectives_;
  offer->body[1] = static_cast<std::int64_t>(bytes);
  for (int q = 0; q < ranks_; ++q) {
    if (q == rank_) continue;
    offer->requests.emplace_back();
    MPI_Isend(offer->body, 2, MPI_INT64_T, q, offer_tag, comm_, &offer->requests.back());
  }
  offers_.push_back(std::move(offer));
}

void early_writes_relay::serve_requests() {
  std::int64_t wanted = 0;
  for (int from = 0; receive_arrived(comm_, request_tag, &wanted, 1, from);) {
    // Only the collective this rank waits in can be asked for (the asking
    // rank has not joined it); anything else is answered with nothing.
    const bool current = wanted == collectives_ && offered_;
    const int bytes = current ? static_cast<int>(channel_.control().outgoing_bytes) : 0;
    MPI_Request r;
    MPI_Isend(channel_.outgoing(), bytes, MPI_BYTE, from, diffs_tag, comm_, &r);
    finish(r, [] {});
  }
}

bool early_writes_relay::take_offer(void (*check)(void*), void* context) {
  std::int64_t offer[2] = {0, 0};
  int from = 0;
  if (!receive_arrived(comm_, offer_tag, offer, 2, from)) return false;
  channel_control& c = channel_.control();
  // For the collective this rank has not begun, while its program computes
  // in a shared window: anything else is over already.
  if (offer[0] != collectives_ + 1 || c.shared_window.load(std::memory_order_seq_cst) == 0 ||
      static_cast<std::uint64_t>(offer[1]) > channel_layout::early_bytes)
    return true;
  const std::int64_t wanted = offer[0];
  MPI_Request asked;
  MPI_Isend(&wanted, 1, MPI_INT64_T, from, request_tag, comm_, &asked);
  channel_.populate(channel_.early(), static_cast<std::size_t>(offer[1]), true);
  MPI_Request got;
  MPI_Status received;
  MPI_Irecv(channel_.early(), static_cast<int>(offer[1]), MPI_BYTE, from, diffs_tag, comm_, &got);
  finish(asked, [&] { check(context); });
  finish(got, [&] { check(context); }, &received);
  int bytes = 0;
  MPI_Get_count(&received, MPI_BYTE, &bytes);
  if (bytes <= 0) return true;
  // The program's helper thread applies them (early_writes.cpp).
  c.early_bytes = static_cast<std::uint64_t>(bytes);
  const std::uint32_t seq = c.early_seq.fetch_add(1, std::memory_order_acq_rel) + 1;
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&c.early_seq), FUTEX_WAKE, 1, nullptr, nullptr, 0);
  while (c.early_done.load(std::memory_order_acquire) != seq) {
    if (program_ended_.load(std::memory_order_acquire)) return false;
    check(context);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

void early_writes_relay::drop_offers() {
  std::int64_t offer[2];
  int from = 0;
  while (receive_arrived(comm_, offer_tag, offer, 2, from)) continue;  // read and dropped
}

void early_writes_relay::forget_sent_offers() {
  std::erase_if(offers_, [](std::unique_ptr<sent_offer>& o) {
    int done = 0;
    MPI_Testall(static_cast<int>(o->requests.size()), o->requests.data(), &done, MPI_STATUSES_IGNORE);
    return done != 0;
  });
}

}  // namespace selfsched::cluster
