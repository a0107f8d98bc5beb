# Sourced by eval.sh and test.sh: the environment their pytest runs in.
# One thread per tesseract: OCR runs beside other cases and workers, and its OpenMP threads only fight
# them for the cores (the OCR tests took 61 s instead of 89 s with -n 2 on 2 cores). A value set outside wins.
export OMP_THREAD_LIMIT="${OMP_THREAD_LIMIT:-1}"
