"""The small MLP the checkpoint tests save and restore (one process in
checkpoint_cases.py, several in pods_checkpoint_cases.py)."""

import torch


class Net(torch.nn.Module):

  def __init__(self):
    super().__init__()
    self.fc1 = torch.nn.Linear(8, 16)
    self.fc2 = torch.nn.Linear(16, 4)

  def forward(self, x):
    return self.fc2(torch.relu(self.fc1(x)))
