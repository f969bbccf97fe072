! A reduction whose private copies hold pointers: flang privatizes an array
! as a descriptor beside (or pointing to the heap for) its data. Cluster
! mode cannot move such copies between ranks: the region runs replicated,
! with one message, and the sums are one process's.
program reduction_pointers
  implicit none
  integer, parameter :: n = 20000
  real(8), allocatable :: a(:), h(:)
  real(8) :: fixed(4)
  integer :: i
  allocate(a(n), h(8))
  fixed = 0
  h = 0
  !$omp parallel
  !$omp do
  do i = 1, n
    a(i) = i * 0.5d0
  end do
  !$omp end do
  !$omp do reduction(+:fixed)
  do i = 1, n
    fixed(mod(i, 4) + 1) = fixed(mod(i, 4) + 1) + a(i)
  end do
  !$omp end do
  !$omp do reduction(+:h)
  do i = 1, n
    h(mod(i, 8) + 1) = h(mod(i, 8) + 1) + 1
  end do
  !$omp end do
  !$omp end parallel
  print '(4F16.2)', fixed
  print '(8F9.1)', h
end program
