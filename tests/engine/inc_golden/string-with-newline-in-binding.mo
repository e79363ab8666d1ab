rc 0
