"""ResNet-50 (torchvision's Bottleneck layout [3, 4, 6, 3], written out in plain torch) trained on a synthetic 224x224,
100-class image set the way PyTorch's "Automatic Mixed Precision" recipe and the ImageNet example (pytorch/examples
imagenet/main.py) write it: torch.autocast(float16) + GradScaler, SGD with momentum and OneCycleLR stepped per batch,
an epoch loop calling train_one_epoch() over a shuffled DataLoader whose last batch is smaller, loss.item() and the
top-1 count read every batch (the example's AverageMeter), validate() under model.eval() and torch.no_grad() after
each epoch; the model compiled as the torch.compile tutorial shows (`model = torch.compile(model)`). --small 1: a
narrow ResNet at 32x32 that runs on a CPU in seconds."""

import torch
import torch.nn as nn
from _timing import StepTimer, program_arguments
from torch.utils.data import DataLoader, TensorDataset


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * self.expansion, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, layers=(3, 4, 6, 3), width=64, num_classes=1000):
        super().__init__()
        self.inplanes = width
        self.conv1 = nn.Conv2d(3, width, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._make_layer(width, layers[0])
        self.layer2 = self._make_layer(width * 2, layers[1], stride=2)
        self.layer3 = self._make_layer(width * 4, layers[2], stride=2)
        self.layer4 = self._make_layer(width * 8, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(width * 8 * Bottleneck.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * Bottleneck.expansion:
            downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * Bottleneck.expansion, 1, stride, bias=False),
                                       nn.BatchNorm2d(planes * Bottleneck.expansion))
        layers = [Bottleneck(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * Bottleneck.expansion
        layers += [Bottleneck(self.inplanes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255


def synthetic_images(n, classes, size, generator):
    """uint8 images, as a decoded dataset holds them: a class colour under noise (learnable)."""
    labels = torch.randint(0, classes, (n,), generator=generator)
    colours = torch.randint(0, 128, (classes, 3, 1, 1), generator=generator, dtype=torch.uint8)
    images = torch.randint(0, 128, (n, 3, size, size), generator=generator, dtype=torch.uint8)
    return TensorDataset(images + colours[labels], labels)


def train_one_epoch(model, loader, criterion, optimizer, scaler, scheduler, device, use_amp, timer):
    model.train()
    seen, correct, running = 0, 0, 0.0
    for images, target in loader:
        timer.start()
        images = (images.to(device, non_blocking=True).float() - MEAN.to(device)) / STD.to(device)
        target = target.to(device, non_blocking=True)
        with torch.autocast(device_type=device.split(":")[0], dtype=torch.float16, enabled=use_amp):
            output = model(images)
            loss = criterion(output, target)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        running += loss.item() * images.size(0)
        correct += (output.argmax(1) == target).sum().item()
        seen += images.size(0)
        timer.stop()
    return running / seen, correct / seen


def validate(model, loader, criterion, device, use_amp):
    model.eval()
    seen, correct, running = 0, 0, 0.0
    with torch.no_grad():
        for images, target in loader:
            images = (images.to(device, non_blocking=True).float() - MEAN.to(device)) / STD.to(device)
            target = target.to(device, non_blocking=True)
            with torch.autocast(device_type=device.split(":")[0], dtype=torch.float16, enabled=use_amp):
                output = model(images)
                loss = criterion(output, target)
            running += loss.item() * images.size(0)
            correct += (output.argmax(1) == target).sum().item()
            seen += images.size(0)
    return running / seen, correct / seen


def main() -> None:
    args = program_arguments(epochs=4, steps=0, small=0)
    if args.small:
        layers, width, size, classes, batch_size = (1, 1, 1, 1), 4, 32, 10, 16
    else:
        layers, width, size, classes, batch_size = (3, 4, 6, 3), 64, 224, 100, 128

    steps = args.steps or (4 if args.small else 10)  # batches per epoch
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    # the training set: `steps` full batches and a smaller last one; the validation set: two batches
    train_set = synthetic_images(steps * batch_size + batch_size // 4, classes, size, generator)
    val_set = synthetic_images(2 * batch_size, classes, size, generator)
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True,
                              generator=torch.Generator().manual_seed(1))
    val_loader = DataLoader(val_set, batch_size=batch_size)

    model = ResNet(layers, width, classes).to(args.device)
    model = torch.compile(model, backend=args.backend)
    use_amp = args.device.startswith("cuda")
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.05, epochs=args.epochs,
                                                    steps_per_epoch=len(train_loader))
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    timer = StepTimer(warmup=len(train_loader) + 2, device=args.device)
    for epoch in range(args.epochs):
        train_loss, train_acc = train_one_epoch(model, train_loader, criterion, optimizer, scaler, scheduler,
                                                args.device, use_amp, timer)
        val_loss, val_acc = validate(model, val_loader, criterion, args.device, use_amp)
        print(f"epoch {epoch} train loss {train_loss:.4f} acc {train_acc:.3f} "
              f"val loss {val_loss:.4f} acc {val_acc:.3f}")


if __name__ == "__main__":
    main()
