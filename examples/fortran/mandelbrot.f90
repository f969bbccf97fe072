! Mandelbrot rows in Fortran: a plain OpenMP program (gfortran -fopenmp, so
! libgomp) whose schedule(runtime) loop selfsched serves from outside:
!
!   gfortran -O2 -fopenmp mandelbrot.f90 -o mandelbrot_f
!   (or flang-new-19 -O2 -fopenmp ..., on libomp: served alike)
!   SELFSCHED_SCHEDULE=fss LD_PRELOAD=libselfsched.so ./mandelbrot_f [width height max_iter]
!
! Rows near the set's middle cost far more than the edges (the seeds' own
! example of uneven iterations). The image is computed again serially and
! compared point by point: ok=1 when equal.
program mandelbrot
  use omp_lib
  implicit none
  integer :: width = 400, height = 300, max_iter = 500
  integer, allocatable :: counts(:, :), serial(:, :)
  integer :: row, wrong, threads
  character(len=32) :: arg
  character(len=64) :: schedule_text
  double precision :: started, seconds

  if (command_argument_count() >= 3) then
    call get_command_argument(1, arg); read (arg, *) width
    call get_command_argument(2, arg); read (arg, *) height
    call get_command_argument(3, arg); read (arg, *) max_iter
  end if
  allocate (counts(width, height), serial(width, height))

  started = omp_get_wtime()
  !$omp parallel do schedule(runtime)
  do row = 1, height
    call compute_row(row, counts(:, row))
  end do
  !$omp end parallel do
  seconds = omp_get_wtime() - started

  do row = 1, height
    call compute_row(row, serial(:, row))
  end do
  wrong = count(counts /= serial)

  threads = omp_get_max_threads()
  call get_environment_variable("OMP_SCHEDULE", schedule_text)
  write (*, '(a,i0,a,i0,a,i0,a,a,a,f0.6,a,i0)') 'app=mandelbrot-fortran width=', width, ' height=', height, &
    ' threads=', threads, ' schedule=', trim(schedule_text), ' seconds=', seconds, ' ok=', merge(1, 0, wrong == 0)
  if (wrong /= 0) stop 1

contains

  subroutine compute_row(row, out)
    integer, intent(in) :: row
    integer, intent(out) :: out(:)
    integer :: col, iter
    double precision :: cr, ci, zr, zi, t
    ci = -1.2d0 + 2.4d0 * dble(row - 1) / dble(height)
    do col = 1, width
      cr = -2.0d0 + 3.0d0 * dble(col - 1) / dble(width)
      zr = 0; zi = 0; iter = 0
      do while (iter < max_iter .and. zr * zr + zi * zi <= 4.0d0)
        t = zr * zr - zi * zi + cr
        zi = 2.0d0 * zr * zi + ci
        zr = t
        iter = iter + 1
      end do
      out(col) = iter
    end do
  end subroutine compute_row

end program mandelbrot
