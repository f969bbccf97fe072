// MPI_Iallreduce as a binomial tree, for the SMPI build (smpi_workarounds.h, 3).
//
// SimGrid 3.32's MPI_Iallreduce (colls::iallreduce) has every rank send its
// buffer to every other rank: P(P-1) messages, all in flight at once, and
// each MPI_Test of it tests its 2(P-1) requests. The bridge's checkpoint
// (mpi_bridge/src/regions/checkpoint.cpp) takes one after every loop: at
// 129 ranks that is 16,512 messages against the loop's ~2,600, and the
// engine's cost per completed message grows with the messages in flight
// (the maestro's list of detached sends, scanned by CommImpl::finish()),
// so the run's cost grew far faster than its ranks. Here the reduction goes up a
// binomial tree to rank 0 and the result comes down the same tree, the
// classic algorithm of blocking allreduce (Thakur et al., "Optimization of
// collective communication operations in MPICH", 2005): 2(P-1) messages, a
// rank at most log2 P receives. It stays nonblocking: the caller's request
// is always the receive this rank waits for next, so MPI_Test and MPI_Wait
// (wrapped below), and the blocked waits of waits.cpp, wait on a real SMPI
// request; completing one moves the tree on. Only MPI_Test and MPI_Wait
// move it (the bridge's only calls on such a request: checkpoint.cpp,
// wavefront.cpp); MPI_Waitall and friends would see one stage's receive.
//
// Only commutative operations on eager-sized buffers of contiguous types take the tree (the
// children are combined as they are waited for, and a send must complete
// without its receiver: SMPI's eager threshold, run.py's
// smpi/async-small-thresh); anything else is SMPI's own.
#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#undef MPI_Iallreduce
#undef MPI_Wait
#undef MPI_Test

namespace {

constexpr int tree_tag = 32000;  // below MPI's least MPI_TAG_UB (32767), apart from the bridge's tags
constexpr int largest_tree_bytes = 16384;  // well under the eager threshold run.py sets (64 KiB)

struct tree_allreduce {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int count = 0;
  void* result = nullptr;                   // the caller's receive buffer: partial, then final
  std::vector<unsigned char> incoming;      // a child's partial result
  std::vector<int> children;                // ascending: rank + 1, rank + 2, rank + 4, ... below its lowest set bit
  int parent = -1;                          // rank 0: none
  std::size_t next_child = 0;               // children combined so far
  bool combining = true;                    // false: waiting for the result from the parent
  std::vector<MPI_Request> sends;
};

// By the caller's request variable (unique: each rank's own stack). SMPI's
// ranks share this process and one OS thread.
std::unordered_map<MPI_Request*, std::unique_ptr<tree_allreduce>> in_flight;

// The binomial tree of Thakur et al.: rank r's parent is r with its lowest
// set bit cleared; its children are r + 2^k for 2^k below that bit.
void place_in_tree(tree_allreduce& t, int rank, int size) {
  int mask = 1;
  for (; mask < size; mask <<= 1) {
    if (rank & mask) {
      t.parent = rank - mask;
      break;
    }
    if (rank + mask < size) t.children.push_back(rank + mask);
  }
}

void send(tree_allreduce& t, int to) {
  MPI_Isend(t.result, t.count, t.type, to, tree_tag, t.comm, &t.sends.emplace_back());
}

// Posts the next receive into `request`; MPI_REQUEST_NULL when this rank
// has the final result (its sends to its children are posted).
void post_next(tree_allreduce& t, MPI_Request* request) {
  if (t.combining && t.next_child < t.children.size()) {
    MPI_Irecv(t.incoming.data(), t.count, t.type, t.children[t.next_child], tree_tag, t.comm, request);
    return;
  }
  if (t.combining && t.parent >= 0) {
    t.combining = false;
    send(t, t.parent);
    MPI_Irecv(t.incoming.data(), t.count, t.type, t.parent, tree_tag, t.comm, request);
    return;
  }
  for (int child : t.children) send(t, child);
  // Eager sends: they complete without their receivers.
  MPI_Waitall(static_cast<int>(t.sends.size()), t.sends.data(), MPI_STATUSES_IGNORE);
  *request = MPI_REQUEST_NULL;
}

// The receive in `request` completed: take it in, post the next. True when
// the allreduce is over (`request` is then MPI_REQUEST_NULL).
bool step(tree_allreduce& t, MPI_Request* request) {
  if (t.combining) {
    MPI_Reduce_local(t.incoming.data(), t.result, t.count, t.type, t.op);
    ++t.next_child;
  } else {
    std::memcpy(t.result, t.incoming.data(), t.incoming.size());
    t.combining = true;  // the result came down: pass it on
    t.next_child = t.children.size();
    t.parent = -1;
  }
  post_next(t, request);
  return *request == MPI_REQUEST_NULL;
}

void empty_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE, status->MPI_TAG = MPI_ANY_TAG, status->MPI_ERROR = MPI_SUCCESS;
  MPI_Status_set_elements(status, MPI_BYTE, 0);
}

}  // namespace

extern "C" int selfsched_smpi_iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                         MPI_Comm comm, MPI_Request* request) {
  int commutative = 0, type_size = 0, rank = 0, size = 1;
  MPI_Op_commutative(op, &commutative);
  MPI_Type_size(type, &type_size);
  MPI_Aint lower = 0, extent = 0;
  MPI_Type_get_extent(type, &lower, &extent);
  if (!commutative || extent != type_size || count < 0 || static_cast<long>(count) * type_size > largest_tree_bytes)
    return MPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto t = std::make_unique<tree_allreduce>();
  t->comm = comm, t->type = type, t->op = op, t->count = count, t->result = recvbuf;
  if (sendbuf != MPI_IN_PLACE) std::memcpy(recvbuf, sendbuf, static_cast<std::size_t>(count) * type_size);
  t->incoming.resize(static_cast<std::size_t>(count) * static_cast<std::size_t>(type_size));
  place_in_tree(*t, rank, size);
  post_next(*t, request);
  if (*request != MPI_REQUEST_NULL) in_flight[request] = std::move(t);
  return MPI_SUCCESS;
}

namespace selfsched::smpi {

// MPI_Test of a request that may be a tree allreduce's: false when it is not
// one (the caller tests it as usual).
bool test_tree_allreduce(MPI_Request* request, int* flag, MPI_Status* status) {
  const auto found = in_flight.find(request);
  if (found == in_flight.end()) return false;
  *flag = 0;
  if (*request != MPI_REQUEST_NULL) MPI_Test(request, flag, MPI_STATUS_IGNORE);
  // A receive completed by this test or by a blocked wait (waits.cpp).
  if ((*flag || *request == MPI_REQUEST_NULL) && step(*found->second, request)) {
    in_flight.erase(found);
    *flag = 1;
    empty_status(status);
    return true;
  }
  *flag = 0;
  return true;
}

}  // namespace selfsched::smpi

extern "C" int selfsched_smpi_wait(MPI_Request* request, MPI_Status* status) {
  const auto found = in_flight.find(request);
  if (found == in_flight.end()) return MPI_Wait(request, status);
  do {
    if (*request != MPI_REQUEST_NULL) MPI_Wait(request, MPI_STATUS_IGNORE);
  } while (!step(*found->second, request));
  in_flight.erase(found);
  empty_status(status);
  return MPI_SUCCESS;
}
