! omp_get_schedule and omp_set_schedule from Fortran (omp_lib), with
! libselfsched preloaded and SELFSCHED_SCHEDULE naming a technique: the
! technique is reported as a kind of its own, a standard kind set from code
! takes runtime loops back, and restoring the saved kind brings the
! technique back (its next runtime loop is served by it: SELFSCHED_VERBOSE).
! Prints one line "saved=KIND,CHUNK static=KIND restored=KIND,CHUNK sum=S".
program schedule_calls
  use omp_lib
  implicit none
  integer(kind=omp_sched_kind) :: saved_kind, kind
  integer :: saved_chunk, chunk, i
  integer(kind=8) :: total

  call omp_get_schedule(saved_kind, saved_chunk)
  call omp_set_schedule(omp_sched_static, 0)
  call omp_get_schedule(kind, chunk)
  write (*, '(a,z0,a,i0,a,z0)', advance='no') 'saved=', saved_kind, ',', saved_chunk, ' static=', kind
  call omp_set_schedule(saved_kind, saved_chunk)
  call omp_get_schedule(kind, chunk)

  total = 0
  !$omp parallel do schedule(runtime) reduction(+:total)
  do i = 1, 1000
    total = total + i
  end do
  !$omp end parallel do
  write (*, '(a,z0,a,i0,a,i0)') ' restored=', kind, ',', chunk, ' sum=', total
end program schedule_calls
