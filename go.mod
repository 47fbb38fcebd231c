module github.com/ghost-mpi/ghost

go 1.24
