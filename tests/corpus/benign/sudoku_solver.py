# expect: LOW benign
def solve(board):
    for i in range(81):
        if board[i] == 0:
            r, c = divmod(i, 9)
            used = {board[r * 9 + k] for k in range(9)} | {board[k * 9 + c] for k in range(9)}
            br, bc = 3 * (r // 3), 3 * (c // 3)
            used |= {board[(br + dr) * 9 + bc + dc] for dr in range(3) for dc in range(3)}
            for v in range(1, 10):
                if v not in used:
                    board[i] = v
                    if solve(board):
                        return True
            board[i] = 0
            return False
    return True


puzzle = [0] * 81
puzzle[0] = 5
print(solve(puzzle), puzzle[:9])
