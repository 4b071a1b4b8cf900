"""What the page teaches with: explain, quiz, compare, the scaling lab, training and the real model."""
