! A Fortran loop whose iterations print (flang's runtime keeps each unit's
! state in the program's memory): every rank's print changes it, the merge
! finds the conflict, and the region runs again replicated with one message.
! Its output is held until that merge, so each line appears once, and the
! sum is one process's.
program print_in_loop
  implicit none
  integer :: i
  real(8) :: a(64), total
  a = 0
  !$omp parallel do schedule(static)
  do i = 1, 64
    a(i) = i * 0.5d0
    print '(A,I0)', 'iteration ', i
  end do
  !$omp end parallel do
  total = sum(a)
  print '(A,F8.2)', 'sum ', total
end program print_in_loop
