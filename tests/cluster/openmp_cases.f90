! A Fortran program for cluster mode: module arrays, an allocatable array,
! reductions, dynamic and static loops, a subroutine called many times.
! Each case checks itself against a serial computation.
module fields
  implicit none
  integer, parameter :: n = 20000
  double precision :: a(n), b(n)
end module fields

program openmp_cases_fortran
  use fields
  use omp_lib
  implicit none
  double precision, allocatable :: c(:)
  double precision :: total, expected
  integer :: i, step, largest, expected_largest, failed, threads
  failed = 0
  allocate(c(n))

  !$omp parallel do
  do i = 1, n
    a(i) = value(i)
    c(i) = 2 * value(i)
  end do
  !$omp end parallel do

  total = 0
  largest = -1
  !$omp parallel do schedule(dynamic, 16) reduction(+:total) reduction(max:largest)
  do i = 1, n
    total = total + a(i) + c(i)
    largest = max(largest, mod(i * 7919, 10007))
  end do
  !$omp end parallel do
  expected = 0
  expected_largest = -1
  do i = 1, n
    expected = expected + 3 * value(i)
    expected_largest = max(expected_largest, mod(i * 7919, 10007))
  end do
  print '(a, f16.3, i8)', 'fortran reductions', total, largest
  call verdict('fortran reductions', total == expected .and. largest == expected_largest)

  total = 0
  !$omp parallel do reduction(+:total)
  do i = 1, n
    total = total + 3 * value(i)
  end do
  !$omp end parallel do
  print '(a, f16.3)', 'fortran static reduction', total
  call verdict('fortran static reduction', total == expected)

  do step = 1, 20
    call smooth()
  end do
  total = sum(b) + sum(a)
  expected = 0
  do i = 1, n
    expected = expected + value(i) + 2 * value(i)
  end do
  print '(a, f16.3)', 'fortran steps', total
  call verdict('fortran steps', total == expected)

  !$omp parallel
  !$omp single
  threads = omp_get_num_threads()
  !$omp end single
  !$omp end parallel
  print '(a, i4, i4)', 'fortran team', threads, omp_get_max_threads()
  call verdict('fortran team', threads == omp_get_max_threads())

  deallocate(c)
  if (failed /= 0) stop 1

contains

  double precision function value(i)
    integer, intent(in) :: i
    value = dble(mod(i * 37, 1000)) / 8
  end function value

  subroutine smooth()
    integer :: k
    !$omp parallel do
    do k = 1, n
      b(k) = 2 * a(k)
    end do
    !$omp end parallel do
  end subroutine smooth

  subroutine verdict(name, ok)
    character(len=*), intent(in) :: name
    logical, intent(in) :: ok
    if (ok) then
      print '(a, a)', name, ': ok'
    else
      print '(a, a)', name, ': WRONG'
      failed = failed + 1
    end if
  end subroutine verdict
end program openmp_cases_fortran
