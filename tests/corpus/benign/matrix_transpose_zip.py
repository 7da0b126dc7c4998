# expect: LOW benign
matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]
transposed = [list(row) for row in zip(*matrix)]
print(transposed)
flattened = [x for row in matrix for x in row]
print(sum(flattened), max(flattened))
diag = [matrix[i][i] for i in range(min(len(matrix), len(matrix[0])))]
print(diag)
